//! Writes a [`Vmd`] back to bytes.

use crate::text::encode_sjis_field;
use crate::vmd::{Vmd, VmdVersion};
use crate::writer::Writer;

impl Vmd {
    /// Serialises the motion in the layout [`Vmd::parse`] reads. All six
    /// sections are written (empty ones as a zero count). Names longer than
    /// their field are cut at a character boundary.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(
            64 + self.bone_keys.len() * 111
                + self.morph_keys.len() * 23
                + self.camera_keys.len() * 61
                + self.light_keys.len() * 28
                + self.self_shadow_keys.len() * 9
                + self.property_keys.len() * 64,
        );
        let mut magic = [0u8; 30];
        let (sig, name): (&[u8; 25], Vec<u8>) = match self.version {
            VmdVersion::V2 => (
                b"Vocaloid Motion Data 0002",
                encode_sjis_field::<20>(&self.model_name).to_vec(),
            ),
            VmdVersion::Old => (
                b"Vocaloid Motion Data file",
                encode_sjis_field::<10>(&self.model_name).to_vec(),
            ),
        };
        magic[..25].copy_from_slice(sig);
        w.bytes(&magic);
        w.bytes(&name);

        w.count_u32(self.bone_keys.len());
        for k in &self.bone_keys {
            w.bytes(&encode_sjis_field::<15>(&k.bone_name));
            w.u32(k.frame);
            w.vec3(k.translation);
            w.quat(k.rotation);
            w.bytes(&k.interpolation);
        }
        w.count_u32(self.morph_keys.len());
        for k in &self.morph_keys {
            w.bytes(&encode_sjis_field::<15>(&k.morph_name));
            w.u32(k.frame);
            w.f32(k.weight);
        }
        w.count_u32(self.camera_keys.len());
        for k in &self.camera_keys {
            w.u32(k.frame);
            w.f32(k.distance);
            w.vec3(k.target);
            w.vec3(k.rotation);
            w.bytes(&k.interpolation);
            w.u32(k.fov);
            w.u8(u8::from(k.orthographic));
        }
        w.count_u32(self.light_keys.len());
        for k in &self.light_keys {
            w.u32(k.frame);
            w.vec3(k.color);
            w.vec3(k.direction);
        }
        w.count_u32(self.self_shadow_keys.len());
        for k in &self.self_shadow_keys {
            w.u32(k.frame);
            w.u8(k.mode);
            w.f32(k.distance);
        }
        w.count_u32(self.property_keys.len());
        for k in &self.property_keys {
            w.u32(k.frame);
            w.u8(u8::from(k.visible));
            w.count_u32(k.ik_states.len());
            for s in &k.ik_states {
                w.bytes(&encode_sjis_field::<20>(&s.bone_name));
                w.u8(u8::from(s.enabled));
            }
        }
        w.buf
    }
}
