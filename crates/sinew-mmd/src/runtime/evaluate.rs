//! One bone's visit in the evaluation order: its animated pose (bone morphs, fixed axis),
//! append (inherit) with MMD's rules, the IK rotation of a chain bone, and its world matrix;
//! an IK owner's chain is solved there and then (`ik.rs`, or `lockstep.rs` for a pair).

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};

use super::MmdInstance;

impl MmdInstance {
    /// The animated translation offset of bone `i` with its bone morphs.
    pub(super) fn animated_translation(&self, i: usize) -> Vec3 {
        self.translation[i] + self.morph_translation[i]
    }

    pub(super) fn animated_rotation(&self, i: usize) -> Quat {
        self.morph_rotation[i] * self.fixed_axis_rotation(i)
    }

    pub(super) fn fixed_axis_rotation(&self, i: usize) -> Quat {
        self.model.fixed_axis_rotation(i, self.rotation[i])
    }

    pub(super) fn update_world(&mut self, i: usize, compute_ik: bool) {
        let mut rotation = self.animated_rotation(i);
        let mut position = self.animated_translation(i);
        let (append, has_ik) = {
            let bone = &self.model.bones[i];
            (bone.append, bone.ik.is_some())
        };
        if self.options.append {
            if let Some(a) = append {
                let src = a.source;
                if a.rotation {
                    let mut q = if a.local {
                        Quat::from_mat3a(&orthonormal(&self.world[src].matrix3))
                    } else if self.model.bones[src].append.is_some_and(|s| s.rotation) {
                        // babylon-mmd reads an appending source's append state, reset at the
                        // start of every frame: the identity when the source comes later.
                        self.append_rotation[src]
                    } else {
                        self.animated_rotation(src)
                    };
                    if self.plan.is_chain[src] && !a.local {
                        q = self.ik_rotation[src] * q;
                    }
                    if a.ratio != 1.0 {
                        q = Quat::IDENTITY.slerp(q, a.ratio);
                    }
                    rotation *= q;
                    self.append_rotation[i] = rotation;
                }
                if a.translation {
                    let mut p = if a.local {
                        // babylon-mmd: the translation of world × inverse bind, composed as
                        // its row-vector matrices compose: world translation − bind position.
                        let src_pos = Vec3A::from(self.model.bones[src].position);
                        Vec3::from(self.world[src].translation - src_pos)
                    } else if self.model.bones[src].append.is_some_and(|s| s.translation) {
                        self.append_position[src]
                    } else {
                        self.animated_translation(src)
                    };
                    if a.ratio != 1.0 {
                        p *= a.ratio;
                    }
                    position += p;
                    self.append_position[i] = position;
                }
            }
        }
        if self.plan.is_chain[i] {
            self.chain_rotation[i] = rotation;
            self.chain_position[i] = position;
            rotation = self.ik_rotation[i] * rotation;
        }
        self.set_world(i, rotation, position);
        if compute_ik && self.options.ik && has_ik && self.ik_active(i) {
            if self.solved_early[i] {
                self.solved_early[i] = false;
            } else if let Some(partner) =
                self.plan.partner[i].filter(|&p| self.lockstep && self.ik_active(p))
            {
                // The partner comes next in the evaluation order and reads nothing this
                // chain writes: evaluate it now and solve both.
                self.update_world(partner, false);
                self.solved_early[partner] = true;
                self.solve_lockstep([i, partner]);
            } else {
                self.solve_ik(i);
            }
        }
    }

    pub(super) fn set_world(&mut self, i: usize, rotation: Quat, position: Vec3) {
        let bone = &self.model.bones[i];
        let local = Affine3A::from_rotation_translation(rotation, bone.rest_offset + position);
        self.world[i] = match bone.parent {
            Some(p) => self.world[p] * local,
            None => local,
        };
    }

    pub(super) fn update_ik_chain_world(&mut self, b: usize) {
        let rotation = self.ik_rotation[b] * self.chain_rotation[b];
        self.set_world(b, rotation, self.chain_position[b]);
        self.stack.clear();
        self.stack.extend(self.plan.children[b].iter().copied());
        while let Some(c) = self.stack.pop() {
            self.update_world(c, false);
            let n = self.plan.children[c].len();
            for k in 0..n {
                let cc = self.plan.children[c][k];
                self.stack.push(cc);
            }
        }
    }

    pub(super) fn position(&self, i: usize) -> Vec3 {
        self.world[i].translation.into()
    }
}

/// The rotation part of a matrix with any scale removed.
pub(super) fn orthonormal(m: &Mat3A) -> Mat3A {
    Mat3A::from_cols(
        m.x_axis.normalize_or_zero(),
        m.y_axis.normalize_or_zero(),
        m.z_axis.normalize_or_zero(),
    )
}
