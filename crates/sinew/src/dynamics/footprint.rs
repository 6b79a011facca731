//! What one IK chain's solve touches ([`SolveFootprint`]): the test every runtime uses to
//! decide that two chains may be solved side by side (lockstep) with the results of solving
//! them one after the other.

/// The bones a chain's solve writes and reads, as flags per bone index.
///
/// - **writes**: the base link and everything below it, and every bone fed from a written
///   bone through a pose constraint (inheritance / MMD append), with everything below that;
/// - **reads**: the path bones, the listed roots (base link, controller) and all their
///   ancestors, and the sources of the constraints on written bones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SolveFootprint {
    writes: Box<[bool]>,
    reads: Box<[bool]>,
}

impl SolveFootprint {
    /// The footprint over `bones` bones (indices `0..bones`, any order) whose hierarchy is
    /// `parent`, of a chain with base link `base`, path `path` (the bones its iterations read),
    /// `roots` (bones read with every ancestor: the base link, the controller) and
    /// `constraints` (`(target, source)` pairs: the target's pose is fed from the source's).
    /// Index walks are bounded by `bones`, so a cyclic `parent` cannot hang it.
    ///
    /// # Panics
    /// When an index is not below `bones`.
    #[must_use]
    pub(crate) fn new(
        bones: usize,
        parent: impl Fn(usize) -> Option<usize>,
        base: usize,
        path: &[usize],
        roots: &[usize],
        constraints: &[(usize, usize)],
    ) -> Self {
        let mut writes = vec![false; bones];
        writes[base] = true;
        // Until nothing changes: children of written bones, targets fed from written ones.
        for _ in 0..=bones {
            let mut grew = false;
            for i in 0..bones {
                if !writes[i] && parent(i).is_some_and(|p| writes[p]) {
                    writes[i] = true;
                    grew = true;
                }
            }
            for &(target, source) in constraints {
                if writes[source] && !writes[target] {
                    writes[target] = true;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let mut reads = vec![false; bones];
        for &b in path {
            reads[b] = true;
        }
        for &root in roots {
            reads[root] = true;
            let mut b = root;
            for _ in 0..bones {
                match parent(b) {
                    Some(p) => {
                        reads[p] = true;
                        b = p;
                    }
                    None => break,
                }
            }
        }
        for &(target, source) in constraints {
            if writes[target] {
                reads[source] = true;
            }
        }
        Self {
            writes: writes.into(),
            reads: reads.into(),
        }
    }

    /// Whether the solve writes bone `i`.
    #[cfg(test)]
    fn writes(&self, i: usize) -> bool {
        self.writes[i]
    }

    /// Whether the solve reads bone `i`.
    #[cfg(test)]
    fn reads(&self, i: usize) -> bool {
        self.reads[i]
    }

    /// Whether neither solve writes a bone the other reads or writes: solving the two side by
    /// side gives what solving them one after the other gives, in either order. `false` for
    /// footprints over different bone counts.
    #[must_use]
    pub(crate) fn disjoint(&self, other: &Self) -> bool {
        self.writes.len() == other.writes.len()
            && (0..self.writes.len()).all(|k| {
                !(self.writes[k] && (other.reads[k] || other.writes[k]))
                    && !(other.writes[k] && self.reads[k])
            })
    }
}

#[cfg(test)]
mod tests {
    use super::SolveFootprint;

    /// 0 root; 1 hips; legs 2→3→4 and 5→6→7; 8 fed from 3 (a D-bone); 9 reads nothing.
    fn parent(i: usize) -> Option<usize> {
        [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(1),
            Some(5),
            Some(6),
            Some(1),
            Some(0),
        ][i]
    }

    #[test]
    fn legs_are_disjoint_until_a_constraint_crosses() {
        let left = SolveFootprint::new(10, parent, 2, &[2, 3, 4], &[2, 9], &[]);
        let right = SolveFootprint::new(10, parent, 5, &[5, 6, 7], &[5, 9], &[]);
        assert!(left.writes(4) && !left.writes(1) && left.reads(0) && left.reads(9));
        assert!(left.disjoint(&right) && right.disjoint(&left));
        // A bone fed from the left knee is written by the left solve; the right chain reading
        // it (its controller) makes the pair unsafe.
        let constraints = [(8, 3)];
        let left = SolveFootprint::new(10, parent, 2, &[2, 3, 4], &[2, 9], &constraints);
        let right = SolveFootprint::new(10, parent, 5, &[5, 6, 7], &[5, 8], &constraints);
        assert!(left.writes(8));
        assert!(!left.disjoint(&right));
    }

    #[test]
    fn cyclic_parents_end() {
        let cyclic = |i: usize| Some((i + 1) % 3);
        let f = SolveFootprint::new(3, cyclic, 0, &[0], &[0], &[]);
        assert!(f.writes(1) && f.writes(2) && f.reads(2));
    }
}
