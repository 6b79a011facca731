//! Mutations of real files, as a fuzzer or a careless tool makes them: truncations, flipped
//! bits, overwritten runs (zeros, `0xFF`, huge floats and counts), and sections spliced from
//! elsewhere in the file or from another file.

use rand::rngs::SmallRng;
use rand::RngExt;

/// Every model and motion file under `dir` (PMX, PMD, VMD, GLB, glTF), found without
/// recursion and sorted: what the corpus, the fuzz seeds and the mutation tests damage.
/// Unreadable folders are skipped.
#[must_use]
pub fn model_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("pmx" | "pmd" | "vmd" | "glb" | "gltf")
            ) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What a mutation did (for file names and reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Cut at a byte.
    Truncate,
    /// One to eight bits flipped.
    FlipBits,
    /// A run overwritten with zeros, `0xFF`, a huge float or a huge count.
    Overwrite,
    /// A run copied from another place (of this file or `donor`) over this one.
    Splice,
    /// A run inserted from elsewhere (shifts everything after it).
    Insert,
    /// A run removed.
    Delete,
}

impl Mutation {
    /// Every mutation, in a fixed order.
    pub const ALL: [Mutation; 6] = [
        Mutation::Truncate,
        Mutation::FlipBits,
        Mutation::Overwrite,
        Mutation::Splice,
        Mutation::Insert,
        Mutation::Delete,
    ];

    /// A short lowercase name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Mutation::Truncate => "truncate",
            Mutation::FlipBits => "flip",
            Mutation::Overwrite => "overwrite",
            Mutation::Splice => "splice",
            Mutation::Insert => "insert",
            Mutation::Delete => "delete",
        }
    }
}

/// Patterns written over a run: each is repeated to the run's length.
const PATTERNS: [&[u8]; 6] = [
    &[0x00],
    &[0xFF],
    &0x7F7F_FFFFu32.to_le_bytes(), // f32::MAX
    &0x7FC0_0000u32.to_le_bytes(), // NaN
    &0x7FFF_FFFFu32.to_le_bytes(), // i32::MAX as a count
    &0x0001_0000u32.to_le_bytes(), // 65,536 as a count
];

/// A random run `(start, len)` inside `len` bytes, at most 64 long.
fn run(rng: &mut SmallRng, len: usize) -> (usize, usize) {
    let start = rng.random_range(0..len);
    let n = rng.random_range(1..=64usize.min(len - start));
    (start, n)
}

/// Applies `kind` to a copy of `bytes`; `donor` is another file to splice from (may be
/// `bytes` itself). Empty input comes back unchanged.
#[must_use]
pub fn mutate(bytes: &[u8], donor: &[u8], kind: Mutation, rng: &mut SmallRng) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return out;
    }
    let donor = if donor.is_empty() { bytes } else { donor };
    match kind {
        Mutation::Truncate => {
            // Favour the header and the early sections, where counts and sizes live.
            let cut = if rng.random_bool(0.5) {
                rng.random_range(0..out.len().min(512))
            } else {
                rng.random_range(0..out.len())
            };
            out.truncate(cut);
        }
        Mutation::FlipBits => {
            for _ in 0..rng.random_range(1..=8) {
                let i = rng.random_range(0..out.len());
                out[i] ^= 1 << rng.random_range(0..8);
            }
        }
        Mutation::Overwrite => {
            let (start, n) = run(rng, out.len());
            let pattern = PATTERNS[rng.random_range(0..PATTERNS.len())];
            for (k, b) in out[start..start + n].iter_mut().enumerate() {
                *b = pattern[k % pattern.len()];
            }
        }
        Mutation::Splice => {
            let (from, n) = run(rng, donor.len());
            let to = rng.random_range(0..out.len());
            let n = n.min(out.len() - to);
            out[to..to + n].copy_from_slice(&donor[from..from + n]);
        }
        Mutation::Insert => {
            let (from, n) = run(rng, donor.len());
            let to = rng.random_range(0..=out.len());
            out.splice(to..to, donor[from..from + n].iter().copied());
        }
        Mutation::Delete => {
            let (start, n) = run(rng, out.len());
            out.drain(start..start + n);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_mutation_changes_or_shortens_and_is_reproducible() {
        let bytes = vec![0x55u8; 2000];
        for kind in Mutation::ALL {
            let a = mutate(&bytes, &bytes, kind, &mut SmallRng::seed_from_u64(7));
            let b = mutate(&bytes, &bytes, kind, &mut SmallRng::seed_from_u64(7));
            assert_eq!(a, b, "{kind:?} is not reproducible");
            if kind != Mutation::Splice {
                // A splice may copy a run onto identical bytes; the others always change.
                assert_ne!(a, bytes, "{kind:?} changed nothing");
            }
        }
        assert!(mutate(
            &[],
            &[],
            Mutation::FlipBits,
            &mut SmallRng::seed_from_u64(1)
        )
        .is_empty());
    }
}
