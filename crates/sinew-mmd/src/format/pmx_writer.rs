//! Writes a [`Pmx`] back to bytes.
//!
//! Indices are written with the sizes in [`Pmx::globals`]; an index that does
//! not fit the declared size is truncated to its low bytes (the parser never
//! produces one). The text encoding is the one in the globals.

use crate::pmx::*;
use crate::text;
use crate::writer::Writer;

impl Pmx {
    /// Serialises the model in the layout [`Pmx::parse`] reads.
    ///
    /// Soft bodies are written only when `version > 2.0`. The bone flags that
    /// announce optional data are derived from the bone's fields (see [`PmxBone`]).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let g = self.globals;
        let mut w = PmxWriter {
            w: Writer::with_capacity(1024 + self.vertices.len() * 64 + self.indices.len() * 4),
            g,
        };
        w.w.bytes(b"PMX ");
        w.w.f32(self.version);
        w.w.u8(u8::try_from(8 + self.extra_globals.len()).unwrap_or(u8::MAX));
        w.w.bytes(&[
            match g.encoding {
                PmxEncoding::Utf16Le => 0,
                PmxEncoding::Utf8 => 1,
            },
            g.additional_uv_count,
            g.vertex_index_size,
            g.texture_index_size,
            g.material_index_size,
            g.bone_index_size,
            g.morph_index_size,
            g.rigid_body_index_size,
        ]);
        let extra = self
            .extra_globals
            .get(..usize::from(u8::MAX - 8))
            .unwrap_or(&self.extra_globals);
        w.w.bytes(extra);
        w.text(&self.name);
        w.text(&self.name_en);
        w.text(&self.comment);
        w.text(&self.comment_en);

        w.w.count_i32(self.vertices.len());
        for v in &self.vertices {
            w.vertex(v);
        }
        w.w.count_i32(self.indices.len());
        for &i in &self.indices {
            w.vertex_index(i);
        }
        w.w.count_i32(self.textures.len());
        for t in &self.textures {
            w.text(t);
        }
        w.w.count_i32(self.materials.len());
        for m in &self.materials {
            w.material(m);
        }
        w.w.count_i32(self.bones.len());
        for b in &self.bones {
            w.bone(b);
        }
        w.w.count_i32(self.morphs.len());
        for m in &self.morphs {
            w.morph(m);
        }
        w.w.count_i32(self.display_frames.len());
        for f in &self.display_frames {
            w.text(&f.name);
            w.text(&f.name_en);
            w.w.u8(u8::from(f.special));
            w.w.count_i32(f.items.len());
            for item in &f.items {
                match *item {
                    PmxDisplayItem::Bone(i) => {
                        w.w.u8(0);
                        w.index(i, g.bone_index_size);
                    }
                    PmxDisplayItem::Morph(i) => {
                        w.w.u8(1);
                        w.index(i, g.morph_index_size);
                    }
                }
            }
        }
        w.w.count_i32(self.rigid_bodies.len());
        for b in &self.rigid_bodies {
            w.rigid_body(b);
        }
        w.w.count_i32(self.joints.len());
        for j in &self.joints {
            w.joint(j);
        }
        if self.version > 2.0 {
            w.w.count_i32(self.soft_bodies.len());
            for s in &self.soft_bodies {
                w.soft_body(s);
            }
        }
        w.w.buf
    }
}

struct PmxWriter {
    w: Writer,
    g: PmxGlobals,
}

impl PmxWriter {
    fn text(&mut self, s: &str) {
        match self.g.encoding {
            PmxEncoding::Utf8 => {
                self.w.count_i32(s.len());
                self.w.bytes(s.as_bytes());
            }
            PmxEncoding::Utf16Le => {
                let len_at = self.w.buf.len();
                self.w.i32(0);
                text::encode_utf16le(s, &mut self.w.buf);
                let n = self.w.buf.len() - len_at - 4;
                let len = i32::try_from(n).unwrap_or(i32::MAX).to_le_bytes();
                if let Some(dst) = self.w.buf.get_mut(len_at..len_at + 4) {
                    dst.copy_from_slice(&len);
                }
            }
        }
    }

    /// A signed index in `size` bytes (truncating).
    fn index(&mut self, i: i32, size: u8) {
        match size {
            1 => self.w.u8(i as u8),
            2 => self.w.i16(i as i16),
            _ => self.w.i32(i),
        }
    }

    fn vertex_index(&mut self, i: u32) {
        match self.g.vertex_index_size {
            1 => self.w.u8(i as u8),
            2 => self.w.u16(i as u16),
            _ => self.w.u32(i),
        }
    }

    fn bone_index(&mut self, i: i32) {
        self.index(i, self.g.bone_index_size);
    }

    fn vertex(&mut self, v: &PmxVertex) {
        self.w.vec3(v.position);
        self.w.vec3(v.normal);
        self.w.vec2(v.uv);
        for uv in v
            .additional_uvs
            .iter()
            .take(usize::from(self.g.additional_uv_count))
        {
            self.w.vec4(*uv);
        }
        match v.deform {
            PmxDeform::Bdef1 { bone } => {
                self.w.u8(0);
                self.bone_index(bone);
            }
            PmxDeform::Bdef2 { bones, weight } => {
                self.w.u8(1);
                self.bone_index(bones[0]);
                self.bone_index(bones[1]);
                self.w.f32(weight);
            }
            PmxDeform::Bdef4 { bones, weights } | PmxDeform::Qdef { bones, weights } => {
                self.w.u8(if matches!(v.deform, PmxDeform::Bdef4 { .. }) {
                    2
                } else {
                    4
                });
                for b in bones {
                    self.bone_index(b);
                }
                for x in weights {
                    self.w.f32(x);
                }
            }
            PmxDeform::Sdef {
                bones,
                weight,
                c,
                r0,
                r1,
            } => {
                self.w.u8(3);
                self.bone_index(bones[0]);
                self.bone_index(bones[1]);
                self.w.f32(weight);
                self.w.vec3(c);
                self.w.vec3(r0);
                self.w.vec3(r1);
            }
        }
        self.w.f32(v.edge_scale);
    }

    fn material(&mut self, m: &PmxMaterial) {
        self.text(&m.name);
        self.text(&m.name_en);
        self.w.vec4(m.diffuse);
        self.w.vec3(m.specular);
        self.w.f32(m.specular_strength);
        self.w.vec3(m.ambient);
        self.w.u8(m.flags);
        self.w.vec4(m.edge_color);
        self.w.f32(m.edge_size);
        let ts = self.g.texture_index_size;
        self.index(m.texture, ts);
        self.index(m.sphere_texture, ts);
        self.w.u8(m.sphere_mode);
        match m.toon {
            PmxToon::Texture(t) => {
                self.w.u8(0);
                self.index(t, ts);
            }
            PmxToon::Shared(s) => {
                self.w.u8(1);
                self.w.u8(s);
            }
        }
        self.text(&m.memo);
        self.w.i32(m.index_count);
    }

    fn bone(&mut self, b: &PmxBone) {
        let append_bits = PmxBoneFlags::APPEND_ROTATE | PmxBoneFlags::APPEND_TRANSLATE;
        let has_append = b.append.is_some() && b.flags.0 & append_bits != 0;
        let flags = b
            .flags
            .with(
                PmxBoneFlags::TAIL_IS_BONE,
                matches!(b.tail, PmxBoneTail::Bone(_)),
            )
            .with(PmxBoneFlags::FIXED_AXIS, b.fixed_axis.is_some())
            .with(PmxBoneFlags::LOCAL_AXES, b.local_axes.is_some())
            .with(PmxBoneFlags::EXTERNAL_PARENT, b.external_parent.is_some())
            .with(PmxBoneFlags::IK, b.ik.is_some());
        // Append data is written when present and announced by rotate and/or
        // translate; otherwise both bits are cleared.
        let flags = flags
            .with(append_bits, false)
            .with(b.flags.0 & append_bits, has_append);
        self.text(&b.name);
        self.text(&b.name_en);
        self.w.vec3(b.position);
        self.bone_index(b.parent);
        self.w.i32(b.layer);
        self.w.u16(flags.0);
        match b.tail {
            PmxBoneTail::Bone(i) => self.bone_index(i),
            PmxBoneTail::Offset(v) => self.w.vec3(v),
        }
        if let (true, Some(a)) = (has_append, b.append) {
            self.bone_index(a.parent);
            self.w.f32(a.ratio);
        }
        if let Some(axis) = b.fixed_axis {
            self.w.vec3(axis);
        }
        if let Some(ax) = b.local_axes {
            self.w.vec3(ax.x);
            self.w.vec3(ax.z);
        }
        if let Some(key) = b.external_parent {
            self.w.i32(key);
        }
        if let Some(ik) = &b.ik {
            self.bone_index(ik.effector);
            self.w.i32(ik.loop_count);
            self.w.f32(ik.limit_angle);
            self.w.count_i32(ik.links.len());
            for l in &ik.links {
                self.bone_index(l.bone);
                match l.limit {
                    None => self.w.u8(0),
                    Some((lo, hi)) => {
                        self.w.u8(1);
                        self.w.vec3(lo);
                        self.w.vec3(hi);
                    }
                }
            }
        }
    }

    fn morph(&mut self, m: &PmxMorph) {
        self.text(&m.name);
        self.text(&m.name_en);
        self.w.u8(m.panel);
        self.w.u8(m.offsets.type_id());
        self.w.count_i32(m.offsets.len());
        let g = self.g;
        match &m.offsets {
            PmxMorphOffsets::Group(v) | PmxMorphOffsets::Flip(v) => {
                for o in v {
                    self.index(o.morph, g.morph_index_size);
                    self.w.f32(o.weight);
                }
            }
            PmxMorphOffsets::Vertex(v) => {
                for o in v {
                    self.vertex_index(o.vertex);
                    self.w.vec3(o.offset);
                }
            }
            PmxMorphOffsets::Bone(v) => {
                for o in v {
                    self.bone_index(o.bone);
                    self.w.vec3(o.translation);
                    self.w.quat(o.rotation);
                }
            }
            PmxMorphOffsets::Uv { offsets, .. } => {
                for o in offsets {
                    self.vertex_index(o.vertex);
                    self.w.vec4(o.offset);
                }
            }
            PmxMorphOffsets::Material(v) => {
                for o in v {
                    self.index(o.material, g.material_index_size);
                    self.w.u8(o.operation);
                    self.w.vec4(o.diffuse);
                    self.w.vec3(o.specular);
                    self.w.f32(o.specular_strength);
                    self.w.vec3(o.ambient);
                    self.w.vec4(o.edge_color);
                    self.w.f32(o.edge_size);
                    self.w.vec4(o.texture_tint);
                    self.w.vec4(o.sphere_tint);
                    self.w.vec4(o.toon_tint);
                }
            }
            PmxMorphOffsets::Impulse(v) => {
                for o in v {
                    self.index(o.rigid_body, g.rigid_body_index_size);
                    self.w.u8(u8::from(o.local));
                    self.w.vec3(o.velocity);
                    self.w.vec3(o.torque);
                }
            }
        }
    }

    fn rigid_body(&mut self, b: &PmxRigidBody) {
        self.text(&b.name);
        self.text(&b.name_en);
        self.bone_index(b.bone);
        self.w.u8(b.group);
        self.w.u16(b.collision_mask);
        self.w.u8(b.shape.to_u8());
        self.w.vec3(b.size);
        self.w.vec3(b.position);
        self.w.vec3(b.rotation);
        self.w.f32(b.mass);
        self.w.f32(b.linear_damping);
        self.w.f32(b.angular_damping);
        self.w.f32(b.restitution);
        self.w.f32(b.friction);
        self.w.u8(b.mode.to_u8());
    }

    fn joint(&mut self, j: &PmxJoint) {
        self.text(&j.name);
        self.text(&j.name_en);
        self.w.u8(j.kind.to_u8());
        let rs = self.g.rigid_body_index_size;
        self.index(j.body_a, rs);
        self.index(j.body_b, rs);
        for v in [
            j.position,
            j.rotation,
            j.linear_lower,
            j.linear_upper,
            j.angular_lower,
            j.angular_upper,
            j.spring_linear,
            j.spring_angular,
        ] {
            self.w.vec3(v);
        }
    }

    fn soft_body(&mut self, s: &PmxSoftBody) {
        self.text(&s.name);
        self.text(&s.name_en);
        self.w.u8(s.shape);
        self.index(s.material, self.g.material_index_size);
        self.w.u8(s.group);
        self.w.u16(s.collision_mask);
        self.w.u8(s.flags);
        self.w.i32(s.b_link_distance);
        self.w.i32(s.cluster_count);
        self.w.f32(s.total_mass);
        self.w.f32(s.collision_margin);
        self.w.i32(s.aero_model);
        for v in s.config.iter().chain(&s.cluster) {
            self.w.f32(*v);
        }
        for v in s.iterations {
            self.w.i32(v);
        }
        for v in s.material_coefficients {
            self.w.f32(v);
        }
        self.w.count_i32(s.anchors.len());
        for a in &s.anchors {
            self.index(a.rigid_body, self.g.rigid_body_index_size);
            self.vertex_index(a.vertex);
            self.w.u8(a.near_mode);
        }
        self.w.count_i32(s.pins.len());
        for &p in &s.pins {
            self.vertex_index(p);
        }
    }
}
