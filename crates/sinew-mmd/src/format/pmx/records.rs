//! One record of each PMX table (vertex, material, bone, morph, display frame, rigid body,
//! joint, soft body), read by the parser (`parse.rs`).

use glam::Vec4;

use crate::error::ParseError;
use crate::reader::Reader;

use super::parse::*;
use super::*;

impl PmxParser<'_> {
    pub(super) fn vertex(r: &mut Reader<'_>, g: &PmxGlobals) -> Result<PmxVertex, ParseError> {
        let position = r.vec3()?;
        let normal = r.vec3()?;
        let uv = r.vec2()?;
        let mut additional_uvs = [Vec4::ZERO; 4];
        for uv in additional_uvs
            .iter_mut()
            .take(usize::from(g.additional_uv_count))
        {
            *uv = r.vec4()?;
        }
        let at = r.pos();
        let bs = g.bone_index_size;
        let deform = match r.u8()? {
            0 => PmxDeform::Bdef1 {
                bone: signed_index(r, bs)?,
            },
            1 => PmxDeform::Bdef2 {
                bones: [signed_index(r, bs)?, signed_index(r, bs)?],
                weight: r.f32()?,
            },
            t @ (2 | 4) => {
                let bones = [
                    signed_index(r, bs)?,
                    signed_index(r, bs)?,
                    signed_index(r, bs)?,
                    signed_index(r, bs)?,
                ];
                let weights = [r.f32()?, r.f32()?, r.f32()?, r.f32()?];
                if t == 2 {
                    PmxDeform::Bdef4 { bones, weights }
                } else {
                    PmxDeform::Qdef { bones, weights }
                }
            }
            3 => PmxDeform::Sdef {
                bones: [signed_index(r, bs)?, signed_index(r, bs)?],
                weight: r.f32()?,
                c: r.vec3()?,
                r0: r.vec3()?,
                r1: r.vec3()?,
            },
            t => return Err(invalid(r, at, "weight deform type", t)),
        };
        let edge_scale = r.f32()?;
        Ok(PmxVertex {
            position,
            normal,
            uv,
            additional_uvs,
            deform,
            edge_scale,
        })
    }

    pub(super) fn material(&mut self) -> Result<PmxMaterial, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let diffuse = self.r.vec4()?;
        let specular = self.r.vec3()?;
        let specular_strength = self.r.f32()?;
        let ambient = self.r.vec3()?;
        let flags = self.r.u8()?;
        let edge_color = self.r.vec4()?;
        let edge_size = self.r.f32()?;
        let texture = self.texture_index()?;
        let sphere_texture = self.texture_index()?;
        let sphere_mode = self.r.u8()?;
        let at = self.r.pos();
        let toon = match self.r.u8()? {
            0 => PmxToon::Texture(self.texture_index()?),
            1 => PmxToon::Shared(self.r.u8()?),
            v => return Err(invalid(&self.r, at, "toon reference", v)),
        };
        let memo = self.text()?;
        let index_count = self.r.i32()?;
        Ok(PmxMaterial {
            name,
            name_en,
            diffuse,
            specular,
            specular_strength,
            ambient,
            flags,
            edge_color,
            edge_size,
            texture,
            sphere_texture,
            sphere_mode,
            toon,
            memo,
            index_count,
        })
    }

    pub(super) fn bone(&mut self) -> Result<PmxBone, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let position = self.r.vec3()?;
        let parent = self.bone_index()?;
        let layer = self.r.i32()?;
        let flags = PmxBoneFlags(self.r.u16()?);
        let tail = if flags.tail_is_bone() {
            PmxBoneTail::Bone(self.bone_index()?)
        } else {
            PmxBoneTail::Offset(self.r.vec3()?)
        };
        let append = if flags.append_rotate() || flags.append_translate() {
            Some(PmxAppend {
                parent: self.bone_index()?,
                ratio: self.r.f32()?,
            })
        } else {
            None
        };
        let fixed_axis = if flags.fixed_axis() {
            Some(self.r.vec3()?)
        } else {
            None
        };
        let local_axes = if flags.local_axes() {
            Some(PmxLocalAxes {
                x: self.r.vec3()?,
                z: self.r.vec3()?,
            })
        } else {
            None
        };
        let external_parent = if flags.external_parent() {
            Some(self.r.i32()?)
        } else {
            None
        };
        let ik = if flags.ik() {
            let effector = self.bone_index()?;
            let loop_count = self.r.i32()?;
            let limit_angle = self.r.f32()?;
            let n = self.r.count_i32()?;
            let links = self.list(n, 2, |p| {
                let bone = p.bone_index()?;
                let at = p.r.pos();
                let limit = match p.r.u8()? {
                    0 => None,
                    1 => Some((p.r.vec3()?, p.r.vec3()?)),
                    v => return Err(invalid(&p.r, at, "IK link limit flag", v)),
                };
                Ok(PmxIkLink { bone, limit })
            })?;
            Some(PmxIk {
                effector,
                loop_count,
                limit_angle,
                links,
            })
        } else {
            None
        };
        Ok(PmxBone {
            name,
            name_en,
            position,
            parent,
            layer,
            flags,
            tail,
            append,
            fixed_axis,
            local_axes,
            external_parent,
            ik,
        })
    }

    pub(super) fn morph(&mut self) -> Result<PmxMorph, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let panel = self.r.u8()?;
        let at = self.r.pos();
        let kind = self.r.u8()?;
        let n = self.r.count_i32()?;
        let group = |p: &mut Self| {
            Ok(PmxGroupOffset {
                morph: p.morph_index()?,
                weight: p.r.f32()?,
            })
        };
        let offsets = match kind {
            0 => PmxMorphOffsets::Group(self.list(n, 5, group)?),
            1 => PmxMorphOffsets::Vertex(self.list(n, 13, |p| {
                Ok(PmxVertexOffset {
                    vertex: p.vertex_index()?,
                    offset: p.r.vec3()?,
                })
            })?),
            2 => PmxMorphOffsets::Bone(self.list(n, 29, |p| {
                Ok(PmxBoneOffset {
                    bone: p.bone_index()?,
                    translation: p.r.vec3()?,
                    rotation: p.r.quat()?,
                })
            })?),
            3..=7 => PmxMorphOffsets::Uv {
                channel: kind - 3,
                offsets: self.list(n, 17, |p| {
                    Ok(PmxUvOffset {
                        vertex: p.vertex_index()?,
                        offset: p.r.vec4()?,
                    })
                })?,
            },
            8 => PmxMorphOffsets::Material(self.list(n, 114, |p| {
                Ok(PmxMaterialOffset {
                    material: p.material_index()?,
                    operation: p.r.u8()?,
                    diffuse: p.r.vec4()?,
                    specular: p.r.vec3()?,
                    specular_strength: p.r.f32()?,
                    ambient: p.r.vec3()?,
                    edge_color: p.r.vec4()?,
                    edge_size: p.r.f32()?,
                    texture_tint: p.r.vec4()?,
                    sphere_tint: p.r.vec4()?,
                    toon_tint: p.r.vec4()?,
                })
            })?),
            9 => PmxMorphOffsets::Flip(self.list(n, 5, group)?),
            10 => PmxMorphOffsets::Impulse(self.list(n, 26, |p| {
                Ok(PmxImpulseOffset {
                    rigid_body: p.rigid_body_index()?,
                    local: p.r.u8()? != 0,
                    velocity: p.r.vec3()?,
                    torque: p.r.vec3()?,
                })
            })?),
            v => return Err(invalid(&self.r, at, "morph type", v)),
        };
        Ok(PmxMorph {
            name,
            name_en,
            panel,
            offsets,
        })
    }

    pub(super) fn display_frame(&mut self) -> Result<PmxDisplayFrame, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let special = self.r.u8()? != 0;
        let n = self.r.count_i32()?;
        let items = self.list(n, 2, |p| {
            let at = p.r.pos();
            match p.r.u8()? {
                0 => Ok(PmxDisplayItem::Bone(p.bone_index()?)),
                1 => Ok(PmxDisplayItem::Morph(p.morph_index()?)),
                v => Err(invalid(&p.r, at, "display item type", v)),
            }
        })?;
        Ok(PmxDisplayFrame {
            name,
            name_en,
            special,
            items,
        })
    }

    pub(super) fn rigid_body(&mut self) -> Result<PmxRigidBody, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let bone = self.bone_index()?;
        let group = self.r.u8()?;
        let collision_mask = self.r.u16()?;
        let at = self.r.pos();
        let s = self.r.u8()?;
        let shape =
            RigidShape::from_u8(s).ok_or_else(|| invalid(&self.r, at, "rigid body shape", s))?;
        let size = self.r.vec3()?;
        let position = self.r.vec3()?;
        let rotation = self.r.vec3()?;
        let mass = self.r.f32()?;
        let linear_damping = self.r.f32()?;
        let angular_damping = self.r.f32()?;
        let restitution = self.r.f32()?;
        let friction = self.r.f32()?;
        let at = self.r.pos();
        let m = self.r.u8()?;
        let mode =
            PhysicsMode::from_u8(m).ok_or_else(|| invalid(&self.r, at, "physics mode", m))?;
        Ok(PmxRigidBody {
            name,
            name_en,
            bone,
            group,
            collision_mask,
            shape,
            size,
            position,
            rotation,
            mass,
            linear_damping,
            angular_damping,
            restitution,
            friction,
            mode,
        })
    }

    pub(super) fn joint(&mut self) -> Result<PmxJoint, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let at = self.r.pos();
        let k = self.r.u8()?;
        let kind = PmxJointKind::from_u8(k).ok_or_else(|| invalid(&self.r, at, "joint type", k))?;
        Ok(PmxJoint {
            name,
            name_en,
            kind,
            body_a: self.rigid_body_index()?,
            body_b: self.rigid_body_index()?,
            position: self.r.vec3()?,
            rotation: self.r.vec3()?,
            linear_lower: self.r.vec3()?,
            linear_upper: self.r.vec3()?,
            angular_lower: self.r.vec3()?,
            angular_upper: self.r.vec3()?,
            spring_linear: self.r.vec3()?,
            spring_angular: self.r.vec3()?,
        })
    }

    pub(super) fn soft_body(&mut self) -> Result<PmxSoftBody, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let shape = self.r.u8()?;
        let material = self.material_index()?;
        let group = self.r.u8()?;
        let collision_mask = self.r.u16()?;
        let flags = self.r.u8()?;
        let b_link_distance = self.r.i32()?;
        let cluster_count = self.r.i32()?;
        let total_mass = self.r.f32()?;
        let collision_margin = self.r.f32()?;
        let aero_model = self.r.i32()?;
        let mut config = [0f32; 12];
        for v in &mut config {
            *v = self.r.f32()?;
        }
        let mut cluster = [0f32; 6];
        for v in &mut cluster {
            *v = self.r.f32()?;
        }
        let mut iterations = [0i32; 4];
        for v in &mut iterations {
            *v = self.r.i32()?;
        }
        let mut material_coefficients = [0f32; 3];
        for v in &mut material_coefficients {
            *v = self.r.f32()?;
        }
        let n = self.r.count_i32()?;
        let anchors = self.list(n, 3, |p| {
            Ok(PmxSoftBodyAnchor {
                rigid_body: p.rigid_body_index()?,
                vertex: p.vertex_index()?,
                near_mode: p.r.u8()?,
            })
        })?;
        let n = self.r.count_i32()?;
        let pins = self.list(n, 1, |p| p.vertex_index())?;
        Ok(PmxSoftBody {
            name,
            name_en,
            shape,
            material,
            group,
            collision_mask,
            flags,
            b_link_distance,
            cluster_count,
            total_mass,
            collision_margin,
            aero_model,
            config,
            cluster,
            iterations,
            material_coefficients,
            anchors,
            pins,
        })
    }
}
