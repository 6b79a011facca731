//! The shared tail of building a model: validation of every cross-reference, the evaluation
//! order, and the sinew skeleton.

use super::*;
use crate::validate;

impl MmdModel {
    // One call site per format; the parts are what each reader produced.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish(
        name: String,
        format: MmdFormat,
        mut bones: Vec<MmdBone>,
        rigid_bodies: Vec<MmdRigidBody>,
        joints: Vec<MmdJoint>,
        morph_names: Vec<String>,
        (mesh, morphs): (sinew_skin::Mesh, Vec<crate::mesh::MmdMorph>),
        mut warnings: Vec<String>,
    ) -> Result<Self, MmdError> {
        if bones.is_empty() {
            return Err(MmdError::NoBones);
        }
        validate::break_parent_cycles(&mut bones, &mut warnings);
        validate::check_positions(&bones)?;
        validate::repair_appends(&mut bones, &mut warnings);
        validate::repair_ik(&mut bones, &mut warnings);
        validate::check_physics(&bones, &rigid_bodies, &joints, &mut warnings);
        for i in 0..bones.len() {
            bones[i].rest_offset = match bones[i].parent {
                Some(p) => bones[i].position - bones[p].position,
                None => bones[i].position,
            };
        }
        // Unique names for the skeleton.
        let mut seen = std::collections::HashSet::new();
        let given: std::collections::HashSet<String> =
            bones.iter().map(|b| b.name.clone()).collect();
        let mut builder = SkeletonBuilder::new();
        for (i, b) in bones.iter_mut().enumerate() {
            if !seen.insert(b.name.clone()) || b.name.is_empty() {
                // `name#i`, and `#` again while a bone (earlier or later) already has it.
                let mut renamed = format!("{}#{i}", b.name);
                while seen.contains(&renamed) || given.contains(&renamed) {
                    renamed.push('#');
                }
                warnings.push(format!(
                    "bone {i}: duplicate or empty name \"{}\" renamed \"{renamed}\"",
                    b.name
                ));
                b.name = renamed;
                seen.insert(b.name.clone());
            }
        }
        for b in &bones {
            let parent = b.parent.map_or(Parent::Root, Parent::Index);
            builder.push(
                b.name.clone(),
                parent,
                Transform::from_translation(b.rest_offset),
            );
        }
        let skeleton = builder.build()?;
        for b in &bones {
            if let Some(ik) = b.ik.as_ref().filter(|ik| ik.iterations > 0) {
                if !crate::dynamics_reader::ik_links_ordered(&skeleton, ik) {
                    warnings.push(format!(
                        "IK on bone \"{}\": its links do not form a parent chain down to the \
                         effector; not solved (MMD solves the links as listed)",
                        b.name
                    ));
                }
            }
        }
        let mut eval_order: Vec<usize> = (0..bones.len()).collect();
        eval_order.sort_by_key(|&i| (bones[i].after_physics, bones[i].layer));
        let mut eval_rank = vec![0; bones.len()];
        for (k, &b) in eval_order.iter().enumerate() {
            eval_rank[b] = k;
        }
        Ok(Self {
            name,
            format,
            bones,
            rigid_bodies,
            joints,
            morph_names,
            morphs,
            mesh: Arc::new(mesh),
            warnings,
            skeleton,
            eval_order,
            eval_rank,
            ik_simulated: std::sync::OnceLock::new(),
            evaluation_skeleton: std::sync::OnceLock::new(),
            definitions: Default::default(),
            gap_free: std::sync::OnceLock::new(),
        })
    }
}
