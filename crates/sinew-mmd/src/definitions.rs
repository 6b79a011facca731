//! [`MmdDefinitions`]: an MMD model as the one set of sinew definitions a character evaluates —
//! skeleton, IK chains, append as pose constraints, the rigid bodies and joints, and (bone by
//! bone) MMD's evaluation order — plus the two rules of MMD's animated input that are not
//! definitions: the fixed-axis rule and bone morphs ([`MmdInput`]).
//!
//! One set per model and [`MmdOrder`], read on first use and shared by every character
//! ([`MmdModel::definitions`]). The MMD "modes" (animation only, with append, with IK, both)
//! are [`Stages`](sinew::instance::Stages) switched on the instance, not separate definitions.
//!
//! Two evaluations stay, one per order, because neither covers the other at the other's
//! price: the **staged** one (constraints → hierarchy → IK → late constraints) is exact for
//! every model without a [`StagedGap`](crate::StagedGap) (every shared asset) and ≈ 20 %
//! faster; **bone by bone** (MMD's [`EvaluationOrder`](sinew::dynamics::EvaluationOrder)) is
//! exact for every rule of MMD's evaluation, gaps included, but visits bones one at a time
//! (a world matrix per visit, chains re-evaluated over the bones). Folding the staged one
//! into bone by bone costs the MMD frame about a fifth, past the 5 % a merge may cost.

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::dynamics::DynamicsError;
use sinew::{BoneId, Transform};

use crate::dynamics_reader::{read_parts, MmdOrder, MmdReaderOptions, ReadParts, ReadReport};
use crate::mesh::MmdMorph;
use crate::model::fixed_axis::fixed_axis_rotation;
use crate::MmdModel;

/// One bone of a bone morph, on the definitions' skeleton.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BoneMorphEntry {
    bone: BoneId,
    translation: Vec3,
    rotation: Quat,
}

/// An MMD model's definitions for one evaluation order (see the module docs).
#[derive(Debug)]
pub struct MmdDefinitions {
    model: sinew::Model,
    options: MmdReaderOptions,
    /// Per file bone: its bone in the skeleton.
    bones: Box<[BoneId]>,
    /// Per file bone owning an IK the definitions hold: that chain's index.
    chains: Box<[Option<usize>]>,
    /// Bones under MMD's fixed-axis input rule, with their axis.
    fixed_axes: Box<[(BoneId, Vec3)]>,
    /// Per model morph: its bone entries (empty for other kinds).
    bone_morphs: Box<[Box<[BoneMorphEntry]>]>,
    /// The bones some bone morph moves, each once.
    morphed_bones: Box<[BoneId]>,
    report: ReadReport,
}

impl MmdDefinitions {
    /// Reads `mmd` with `options` (IK, append, fixed axes, the physics table and, for
    /// [`MmdOrder::BoneByBone`], MMD's evaluation order). [`MmdModel::definitions`] keeps one
    /// shared set per order; this builds a new one (other unit scales, solvers).
    ///
    /// # Errors
    /// A [`DynamicsError`] when the file's values break a definition contract (never for a
    /// model this crate loaded with default options).
    pub fn read(mmd: &MmdModel, options: MmdReaderOptions) -> Result<Self, DynamicsError> {
        let skeleton = options.skeleton(mmd);
        let mut model = sinew::Model::new(Arc::clone(&skeleton));
        let mut builder = sinew::dynamics::SkeletonDynamicsBuilder::empty(&skeleton);
        let mut report = ReadReport::default();
        let parts = ReadParts {
            ik: true,
            append: true,
            physics: true,
        };
        read_parts(mmd, &mut builder, &options, parts, &mut report)?;
        let dynamics = builder.attach(&mut model)?;
        let bones: Box<[BoneId]> = (0..mmd.bones().len())
            .map(|i| {
                skeleton
                    .from_source_index(i)
                    .expect("every file bone is in the skeleton")
            })
            .collect();
        let chains = (mmd.bones().iter())
            .map(|b| b.ik.as_ref().and_then(|_| dynamics.chain_index(&b.name)))
            .collect();
        let fixed_axes = if options.fixed_axis_constraints {
            Box::default()
        } else {
            (mmd.bones().iter().enumerate())
                .filter_map(|(i, b)| b.fixed_axis.map(|a| (bones[i], a)))
                .collect()
        };
        let bone_morphs: Box<[Box<[BoneMorphEntry]>]> = (mmd.morphs().iter())
            .map(|m| match m {
                MmdMorph::Bone(list) => (list.iter())
                    .map(|b| BoneMorphEntry {
                        bone: bones[b.bone],
                        translation: b.translation,
                        rotation: b.rotation,
                    })
                    .collect(),
                _ => Box::default(),
            })
            .collect();
        let mut morphed: Vec<BoneId> = bone_morphs.iter().flatten().map(|e| e.bone).collect();
        morphed.sort_unstable();
        morphed.dedup();
        Ok(Self {
            model,
            options,
            bones,
            chains,
            fixed_axes,
            bone_morphs,
            morphed_bones: morphed.into_boxed_slice(),
            report,
        })
    }

    /// The skeleton and dynamics every character of this model evaluates.
    #[must_use]
    pub fn model(&self) -> &sinew::Model {
        &self.model
    }

    /// The options the definitions were read with.
    #[must_use]
    pub fn options(&self) -> &MmdReaderOptions {
        &self.options
    }

    /// Whether the definitions carry MMD's evaluation order (bone by bone).
    #[must_use]
    pub fn is_bone_by_bone(&self) -> bool {
        self.options.order == MmdOrder::BoneByBone
    }

    /// The skeleton bone of file bone `file_index` (`None` past the model's bones).
    #[must_use]
    pub fn bone_of_file(&self, file_index: usize) -> Option<BoneId> {
        self.bones.get(file_index).copied()
    }

    /// Per file bone, its skeleton bone: what turns file-order data (a mesh's joints, a
    /// conformance dump) into the skeleton's order.
    #[must_use]
    pub fn file_bones(&self) -> &[BoneId] {
        &self.bones
    }

    /// The IK chain owned by file bone `file_index`, when the definitions hold it.
    #[must_use]
    pub fn chain_of_file(&self, file_index: usize) -> Option<usize> {
        self.chains.get(file_index).copied().flatten()
    }

    /// What the reader left out or approximated.
    #[must_use]
    pub fn report(&self) -> &ReadReport {
        &self.report
    }

    /// Whether any morph of the model moves bones.
    #[must_use]
    pub fn has_bone_morphs(&self) -> bool {
        !self.morphed_bones.is_empty()
    }
}

/// One character's part of MMD's animated input that the definitions do not carry: the bone
/// morphs' accumulated offsets. [`Self::apply`] turns a sampled local pose (absolute, the
/// skeleton's order) into what MMD evaluates: the fixed-axis rule on each such bone's
/// rotation, then the bone morphs (`t += offset`, `r = morph · r`, babylon-mmd's order).
/// Allocation-free per frame; empty for a model without bone morphs.
#[derive(Clone, Debug, Default)]
pub struct MmdInput {
    translation: Vec<Vec3>,
    rotation: Vec<Quat>,
}

impl MmdInput {
    /// The input state for a character of `definitions`.
    #[must_use]
    pub fn new(definitions: &MmdDefinitions) -> Self {
        let n = if definitions.has_bone_morphs() {
            definitions.model.skeleton().len()
        } else {
            0
        };
        Self {
            translation: vec![Vec3::ZERO; n],
            rotation: vec![Quat::IDENTITY; n],
        }
    }

    /// Bytes held on the heap.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.translation.capacity() * std::mem::size_of::<Vec3>()
            + self.rotation.capacity() * std::mem::size_of::<Quat>()
    }

    /// Accumulates the bone morphs of `weights` (one per model morph, after group
    /// expansion): per bone, translation `+= offset · weight`, rotation
    /// `= slerp(rotation, morph rotation, weight)`, morph after morph.
    pub fn set_morph_weights(&mut self, definitions: &MmdDefinitions, weights: &[f32]) {
        if self.translation.is_empty() {
            return;
        }
        for &b in definitions.morphed_bones.iter() {
            self.translation[b.index()] = Vec3::ZERO;
            self.rotation[b.index()] = Quat::IDENTITY;
        }
        for (entries, &w) in definitions.bone_morphs.iter().zip(weights) {
            if w == 0.0 || !w.is_finite() {
                continue;
            }
            for e in entries.iter() {
                let b = e.bone.index();
                self.translation[b] += e.translation * w;
                self.rotation[b] = self.rotation[b].slerp(e.rotation, w);
            }
        }
    }

    /// Applies MMD's input rules to `pose` (absolute locals, the skeleton's order): the
    /// fixed-axis rule, then the bone morphs as last set.
    ///
    /// # Panics
    /// If `pose` is shorter than the skeleton.
    pub fn apply(&self, definitions: &MmdDefinitions, pose: &mut [Transform]) {
        for &(b, axis) in definitions.fixed_axes.iter() {
            let r = &mut pose[b.index()].rotation;
            *r = fixed_axis_rotation(axis, *r);
        }
        if self.translation.is_empty() {
            return;
        }
        for &b in definitions.morphed_bones.iter() {
            let t = &mut pose[b.index()];
            t.translation += self.translation[b.index()];
            t.rotation = self.rotation[b.index()] * t.rotation;
        }
    }
}

impl MmdModel {
    /// The shared definitions of this model for `order` ([`MmdOrder::Staged`] and
    /// [`MmdOrder::BoneByBone`] read as MMD runtimes evaluate, [`MmdOrder::Dependency`] in plain
    /// dependency order), read on first use.
    ///
    /// # Errors
    /// A [`DynamicsError`] when the file's values break a definition contract (never for a
    /// model this crate loaded).
    pub fn definitions(&self, order: MmdOrder) -> Result<Arc<MmdDefinitions>, DynamicsError> {
        let slot = match order {
            MmdOrder::Dependency => 0,
            MmdOrder::Staged => 1,
            MmdOrder::BoneByBone => 2,
        };
        self.definitions[slot]
            .get_or_init(|| {
                let options = match order {
                    MmdOrder::Dependency => MmdReaderOptions::default(),
                    MmdOrder::Staged => MmdReaderOptions::mmd_runtime(),
                    MmdOrder::BoneByBone => MmdReaderOptions::mmd_bone_by_bone(),
                };
                MmdDefinitions::read(self, options).map(Arc::new)
            })
            .clone()
    }

    /// The order MMD runtimes' evaluation of this model takes: [`MmdOrder::Staged`] when it
    /// has no [`StagedGap`](crate::StagedGap) (physics included), [`MmdOrder::BoneByBone`]
    /// otherwise.
    #[must_use]
    pub fn mmd_order(&self) -> MmdOrder {
        if self.evaluates_in_stages() {
            MmdOrder::Staged
        } else {
            MmdOrder::BoneByBone
        }
    }
}
