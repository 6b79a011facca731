//! `sinew inspect FILE`: a readable summary of a PMX, PMD, VMD or glTF file.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use sinew_mmd::{MmdModel, MmdReaderOptions, Pmd, Pmx, Vmd};

use crate::error::CliError;

/// Arguments of `sinew inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// The file to describe (.pmx, .pmd, .vmd, .gltf, .glb).
    pub file: PathBuf,
    /// Print the whole bone tree (default: the first 40 lines).
    #[arg(long)]
    pub full: bool,
}

/// Largest input file read (1 GiB): real models and motions are a few megabytes.
pub(crate) const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Reads an input file: a regular file of at most [`MAX_INPUT_BYTES`] (a device or pipe such as
/// `/dev/zero` would never end).
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, CliError> {
    let cannot = |e: std::io::Error| CliError::Input {
        path: path.to_owned(),
        message: format!("cannot read: {e}"),
    };
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(bad_input(path, "not a regular file"));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(bad_input(
            path,
            format!(
                "{} bytes; inputs are read up to {MAX_INPUT_BYTES} bytes",
                meta.len()
            ),
        ));
    }
    std::fs::read(path).map_err(cannot)
}

pub(crate) fn bad_input(path: &Path, message: impl std::fmt::Display) -> CliError {
    CliError::Input {
        path: path.to_owned(),
        message: message.to_string(),
    }
}

/// Runs the command.
pub fn run(args: &InspectArgs) -> Result<(), CliError> {
    if crate::source::kind_of(&args.file).ok() == Some(crate::source::ModelKind::Gltf) {
        print!("{}", describe_gltf(&args.file, args.full)?);
        return Ok(());
    }
    let bytes = read_file(&args.file)?;
    let text = if bytes.starts_with(b"PMX ") || bytes.starts_with(b"Pmd") {
        describe_model(&args.file, &bytes, args.full)?
    } else if bytes.starts_with(b"Vocaloid Motion Data") {
        describe_vmd(&args.file, &bytes)?
    } else {
        return Err(bad_input(
            &args.file,
            "not a PMX, PMD, VMD or glTF file (unknown magic bytes)",
        ));
    };
    print!("{text}");
    Ok(())
}

/// Deepest tree level drawn by indentation; deeper bones show their depth as a number, so a
/// line's length stays bounded whatever the file's depth.
const MAX_INDENT: usize = 24;

/// The indentation of a tree line at `depth`.
fn indent(depth: usize) -> String {
    if depth <= MAX_INDENT {
        "  ".repeat(depth)
    } else {
        format!("{}[depth {depth}] ", "  ".repeat(MAX_INDENT))
    }
}

/// Writes `lines`, only the first `limit` unless `full`, then how many `what` were left out.
fn write_limited(out: &mut String, lines: &[String], full: bool, limit: usize, what: &str) {
    let shown = if full {
        lines.len()
    } else {
        lines.len().min(limit)
    };
    for l in &lines[..shown] {
        let _ = writeln!(out, "{l}");
    }
    if shown < lines.len() {
        let _ = writeln!(out, "  … {} more{what} (use --full)", lines.len() - shown);
    }
}

fn describe_model(path: &Path, bytes: &[u8], full: bool) -> Result<String, CliError> {
    let mut out = String::new();
    let (vertices, faces, materials, morphs) = if bytes.starts_with(b"PMX ") {
        let p = Pmx::parse(bytes).map_err(|e| bad_input(path, e))?;
        let _ = writeln!(
            out,
            "PMX {:.1} model \"{}\" ({} encoding)",
            p.version,
            p.name,
            if matches!(p.globals.encoding, sinew_mmd::pmx::PmxEncoding::Utf8) {
                "UTF-8"
            } else {
                "UTF-16LE"
            }
        );
        (
            p.vertices.len(),
            p.indices.len() / 3,
            p.materials.len(),
            p.morphs.len(),
        )
    } else {
        let p = Pmd::parse(bytes).map_err(|e| bad_input(path, e))?;
        let _ = writeln!(out, "PMD {:.1} model \"{}\"", p.version, p.name);
        (
            p.vertices.len(),
            p.indices.len() / 3,
            p.materials.len(),
            p.morphs.len(),
        )
    };
    let m = MmdModel::from_bytes(bytes).map_err(|e| bad_input(path, e))?;
    let iks = m.bones().iter().filter(|b| b.ik.is_some()).count();
    let appends = m.bones().iter().filter(|b| b.append.is_some()).count();
    let _ = writeln!(
        out,
        "  {vertices} vertices, {faces} faces, {materials} materials, {} bones ({iks} IK, {appends} append), {morphs} morphs, {} rigid bodies, {} joints",
        m.bones().len(),
        m.rigid_bodies().len(),
        m.joints().len()
    );
    let _ = writeln!(out, "bone tree:");
    let tag_of = |i: usize| {
        let b = &m.bones()[i];
        let mut tags = Vec::new();
        if b.ik.is_some() {
            tags.push("IK".to_owned());
        }
        if let Some(a) = b.append {
            tags.push(format!("append {}×{}", m.bones()[a.source].name, a.ratio));
        }
        if b.fixed_axis.is_some() {
            tags.push("fixed axis".into());
        }
        if b.after_physics {
            tags.push("after physics".into());
        }
        if b.layer != 0 {
            tags.push(format!("layer {}", b.layer));
        }
        if tags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", tags.join(", "))
        }
    };
    // Depth-first, children in file order, without recursion (a file chooses the depth).
    let mut children = vec![Vec::new(); m.bones().len()];
    let mut stack = Vec::new();
    for (i, b) in m.bones().iter().enumerate().rev() {
        match b.parent {
            Some(p) => children[p].push(i),
            None => stack.push((i, 0usize)),
        }
    }
    let mut lines = Vec::with_capacity(m.bones().len());
    while let Some((i, depth)) = stack.pop() {
        lines.push(format!(
            "  {}{} #{i}{}",
            indent(depth),
            m.bones()[i].name,
            tag_of(i)
        ));
        // `children` holds each list in reverse file order: pushing it as is pops file order.
        stack.extend(children[i].iter().map(|&c| (c, depth + 1)));
    }
    write_limited(&mut out, &lines, full, 40, "");
    let _ = writeln!(out, "IK chains:");
    for b in m.bones().iter().filter(|b| b.ik.is_some()) {
        let ik = b.ik.as_ref().expect("filtered");
        let links: Vec<String> = ik
            .links
            .iter()
            .rev()
            .map(|l| {
                let lim = if l.limit.is_some() { " (limited)" } else { "" };
                format!("{}{lim}", m.bones()[l.bone].name)
            })
            .collect();
        let _ = writeln!(
            out,
            "  {}: {} → {} , {} iterations, step {:.3} rad",
            b.name,
            links.join(" → "),
            m.bones()[ik.effector].name,
            ik.iterations,
            ik.limit_angle
        );
    }
    if !m.rigid_bodies().is_empty() {
        let _ = writeln!(out, "rigid bodies:");
        for r in m.rigid_bodies() {
            let bone = r.bone.map_or("-".to_owned(), |b| m.bones()[b].name.clone());
            let _ = writeln!(
                out,
                "  {} on {bone}: {:?} {:?} size {} mass {} group {}",
                r.name, r.shape, r.mode, r.size, r.mass, r.group
            );
        }
        let _ = writeln!(out, "joints:");
        for j in m.joints() {
            let _ = writeln!(out, "  {}: bodies {} ↔ {}", j.name, j.body_a, j.body_b);
        }
    }
    let mut warnings = m.warnings().to_vec();
    match m.to_sinew_model(MmdReaderOptions::default()) {
        Ok((_, report)) => warnings.extend(report.notes),
        Err(e) => warnings.push(format!("definitions rejected: {e}")),
    }
    let _ = writeln!(
        out,
        "validation: {}",
        if warnings.is_empty() {
            "no warnings".to_owned()
        } else {
            format!("{} warnings", warnings.len())
        }
    );
    for w in warnings {
        let _ = writeln!(out, "  warning: {w}");
    }
    Ok(out)
}

fn describe_gltf(path: &Path, full: bool) -> Result<String, CliError> {
    match std::fs::metadata(path) {
        Err(e) => return Err(bad_input(path, format!("cannot read: {e}"))),
        Ok(m) if !m.is_file() => return Err(bad_input(path, "not a regular file")),
        Ok(_) => {}
    }
    let g = sinew_gltf::GltfModel::load(path).map_err(|e| match e {
        sinew_gltf::GltfError::Io { source, .. } => {
            bad_input(path, format!("cannot read: {source}"))
        }
        e => bad_input(path, e),
    })?;
    let doc = g.document();
    let skeleton = g.skeleton();
    let mut out = String::new();
    let joints = g.joint_bones();
    let _ = writeln!(
        out,
        "glTF model: {} nodes, {} meshes, {} skins, {} bones ({} skin joints, {} ancestors), {} animations",
        doc.nodes().len(),
        doc.meshes().len(),
        g.skins().len(),
        skeleton.len(),
        joints.len(),
        skeleton.len() - joints.len(),
        g.clips().len()
    );
    // The bind check against the rest pose (as the loader's own warnings).
    let world = skeleton.rest_world();
    let skin_lines: Vec<String> = g
        .skins()
        .iter()
        .enumerate()
        .map(|(k, skin)| {
            let worst = (0..skin.joints.len())
                .map(|j| g.inverse_bind_error(k, j, world))
                .fold(0.0f32, f32::max);
            format!(
                "skin {}{}: {} joints, inverse binds vs rest pose: worst error {worst:.1e}{}",
                skin.index,
                skin.name
                    .as_deref()
                    .map(|n| format!(" \"{n}\""))
                    .unwrap_or_default(),
                skin.joints.len(),
                if worst <= 1e-3 {
                    " (consistent)"
                } else {
                    " (bind pose is not the rest pose)"
                }
            )
        })
        .collect();
    write_limited(&mut out, &skin_lines, full, 8, " skins");
    let _ = writeln!(out, "bone tree:");
    let is_joint: Vec<bool> = {
        let mut v = vec![false; skeleton.len()];
        for &(_, b) in &joints {
            v[b.index()] = true;
        }
        v
    };
    let lines: Vec<String> = skeleton
        .bones()
        .map(|b| {
            let tag = if is_joint[b.index()] {
                ""
            } else {
                "  [ancestor]"
            };
            format!(
                "  {}{} (node {}){tag}",
                indent(usize::from(skeleton.depth(b))),
                skeleton.name(b),
                g.bone_to_node()[b.index()]
            )
        })
        .collect();
    write_limited(&mut out, &lines, full, 40, "");
    if !g.clips().is_empty() {
        let _ = writeln!(out, "animations:");
        for (i, c) in g.clips().iter().enumerate() {
            let _ = writeln!(
                out,
                "  {i}: \"{}\" {:.3} s, {} bone tracks, {} weight tracks",
                c.name(),
                c.duration(),
                c.bone_tracks().len(),
                c.float_tracks().len()
            );
        }
    }
    let _ = writeln!(
        out,
        "validation: {}",
        if g.warnings().is_empty() {
            "no warnings".to_owned()
        } else {
            format!("{} warnings", g.warnings().len())
        }
    );
    for w in g.warnings() {
        let _ = writeln!(out, "  warning: {w}");
    }
    Ok(out)
}

fn describe_vmd(path: &Path, bytes: &[u8]) -> Result<String, CliError> {
    let v = Vmd::parse(bytes).map_err(|e| bad_input(path, e))?;
    let mut out = String::new();
    let last = v
        .bone_keys
        .iter()
        .map(|k| k.frame)
        .chain(v.morph_keys.iter().map(|k| k.frame))
        .max()
        .unwrap_or(0);
    let mut bones: Vec<&str> = v.bone_keys.iter().map(|k| k.bone_name.as_str()).collect();
    bones.sort_unstable();
    bones.dedup();
    let _ = writeln!(out, "VMD motion for \"{}\"", v.model_name);
    let _ = writeln!(
        out,
        "  {} bone keys on {} bones, {} morph keys, {} camera keys, {} light keys, {} self-shadow keys, {} property keys",
        v.bone_keys.len(),
        bones.len(),
        v.morph_keys.len(),
        v.camera_keys.len(),
        v.light_keys.len(),
        v.self_shadow_keys.len(),
        v.property_keys.len()
    );
    let _ = writeln!(
        out,
        "  frames 0..={last} ({:.2} s at 30 fps)",
        last as f32 / 30.0
    );
    Ok(out)
}
