//! Physics rigs of our own for the Bullet comparison: `miku_v2.pmd` (a shared asset, never
//! copied into this repository) with its physics table edited byte for byte, so that MMD
//! physics is checked on set-ups other than the one it was developed on. Each rig is rebuilt
//! from the asset when a test or the oracle needs it
//! (`cargo run -p sinew-testkit --example physics_rigs -- OUT_DIR` writes them for the oracle).
//!
//! The edits follow the PMD layout: a rigid body is 83 bytes (name 20, bone u16, group u8,
//! mask u16, shape u8, size, position, rotation as 9 f32, then mass, linear damping, angular
//! damping, restitution, friction as 5 f32, mode u8) and a joint 124 bytes (name 20, two body
//! indices u32, then 24 f32: position, rotation, translation low / high, rotation low / high,
//! translation spring, rotation spring); the joint table closes the file.

/// miku_v2.pmd's joint and body counts (the edits check them).
const JOINTS: usize = 27;
const BODIES: usize = 45;
const BODY_BYTES: usize = 83;
const JOINT_BYTES: usize = 124;

/// A rig: its name and what it changes.
#[derive(Clone, Copy, Debug)]
pub struct Rig {
    /// File stem (`miku_v2_<name>.pmd`).
    pub name: &'static str,
    /// What the rig changes, one line.
    pub about: &'static str,
    edit: fn(&mut Table),
}

/// The rigs.
pub const RIGS: [Rig; 2] = [
    Rig {
        name: "swing",
        about: "skirt joints swing ±0.6 rad (x, z) on rotation springs 10; tie bodies plain dynamic; hair twice as heavy with damping 0.2 / 0.4 and rotation springs 30; front hair turns ±0.3 rad",
        edit: swing,
    },
    Rig {
        name: "collide",
        about: "hair collides with every group but its own chain's (arms and waist ornament too), bounces (restitution 0.5, friction 0.9); hair limits halved; hair roots slide ±0.2 on translation springs 50; tie bodies spheres",
        edit: collide,
    },
];

/// One body's editable fields.
pub struct Body<'a> {
    /// Name as the file spells it (Shift-JIS decoded).
    pub name: String,
    bytes: &'a mut [u8],
}

impl Body<'_> {
    fn f32_at(&self, at: usize) -> f32 {
        f32::from_le_bytes(self.bytes[at..at + 4].try_into().expect("4 bytes"))
    }
    fn set_f32(&mut self, at: usize, v: f32) {
        self.bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    /// 0 follows the bone, 1 dynamic, 2 dynamic with the bone's position.
    pub fn mode(&self) -> u8 {
        self.bytes[82]
    }
    fn set_mode(&mut self, m: u8) {
        self.bytes[82] = m;
    }
    /// Collision group, 0..=15.
    pub fn group(&self) -> u8 {
        self.bytes[22] & 15
    }
    fn set_mask(&mut self, mask: u16) {
        self.bytes[23..25].copy_from_slice(&mask.to_le_bytes());
    }
    fn set_shape(&mut self, shape: u8) {
        self.bytes[25] = shape;
    }
    /// Mass, linear damping, angular damping, restitution, friction (0..5).
    fn scalar(&self, i: usize) -> f32 {
        self.f32_at(62 + 4 * i)
    }
    fn set_scalar(&mut self, i: usize, v: f32) {
        self.set_f32(62 + 4 * i, v);
    }
}

/// One joint's editable fields: the 24 floats after the name and bodies.
pub struct Joint<'a> {
    /// Name as the file spells it.
    pub name: String,
    bytes: &'a mut [u8],
}

impl Joint<'_> {
    fn get(&self, i: usize) -> f32 {
        let at = 28 + 4 * i;
        f32::from_le_bytes(self.bytes[at..at + 4].try_into().expect("4 bytes"))
    }
    fn set(&mut self, i: usize, v: f32) {
        let at = 28 + 4 * i;
        self.bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    /// Translation low (6..9), high (9..12); rotation low (12..15), high (15..18);
    /// translation spring (18..21); rotation spring (21..24).
    fn set_range(&mut self, from: usize, v: [f32; 3]) {
        for (k, x) in v.into_iter().enumerate() {
            self.set(from + k, x);
        }
    }
}

/// The body and joint tables of one file.
pub struct Table<'a> {
    /// Bodies in file order.
    pub bodies: Vec<Body<'a>>,
    /// Joints in file order.
    pub joints: Vec<Joint<'a>>,
}

fn name_of(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    encoding_rs::SHIFT_JIS.decode(&bytes[..end]).0.into_owned()
}

/// Splits a miku_v2.pmd file into its body and joint tables, or says why not.
fn table(bytes: &mut [u8]) -> Result<Table<'_>, String> {
    let len = bytes.len();
    let joints_at = len
        .checked_sub(JOINTS * JOINT_BYTES)
        .ok_or("file too short")?;
    let bodies_at = joints_at
        .checked_sub(4 + BODIES * BODY_BYTES)
        .ok_or("file too short")?;
    let count = |at: usize| u32::from_le_bytes(bytes[at - 4..at].try_into().expect("4 bytes"));
    if count(joints_at) as usize != JOINTS || count(bodies_at) as usize != BODIES {
        return Err("not miku_v2.pmd's physics table (45 bodies, 27 joints)".to_owned());
    }
    let (head, joints) = bytes.split_at_mut(joints_at);
    let bodies = &mut head[bodies_at..bodies_at + BODIES * BODY_BYTES];
    Ok(Table {
        bodies: bodies
            .chunks_exact_mut(BODY_BYTES)
            .map(|b| Body {
                name: name_of(&b[..20]),
                bytes: b,
            })
            .collect(),
        joints: joints
            .chunks_exact_mut(JOINT_BYTES)
            .map(|j| Joint {
                name: name_of(&j[..20]),
                bytes: j,
            })
            .collect(),
    })
}

fn swing(t: &mut Table) {
    for b in &mut t.bodies {
        if b.name.contains("ネクタイ") {
            b.set_mode(1);
        }
        if b.name.contains('髪') && !b.name.contains("前髪") && b.mode() != 0 {
            b.set_scalar(0, b.scalar(0) * 2.0);
            b.set_scalar(1, 0.2);
            b.set_scalar(2, 0.4);
        }
    }
    for j in &mut t.joints {
        if j.name.contains("スカート") {
            j.set_range(12, [-0.6, -0.2, -0.6]);
            j.set_range(15, [0.6, 0.2, 0.6]);
            j.set_range(21, [10.0; 3]);
        } else if j.name.contains("前髪") {
            j.set_range(12, [-0.3; 3]);
            j.set_range(15, [0.3; 3]);
        } else if j.name.contains('髪') {
            j.set_range(21, [30.0; 3]);
        }
    }
}

fn collide(t: &mut Table) {
    for b in &mut t.bodies {
        if b.name.contains('髪') && !b.name.contains("前髪") && b.mode() != 0 {
            // Every group but its own chain's (a chain's capsules overlap at their joints).
            let group = b.group();
            b.set_mask(!(1u16 << group));
            b.set_scalar(3, 0.5);
            b.set_scalar(4, 0.9);
        }
        if b.name.contains("ネクタイ") {
            b.set_shape(0);
        }
    }
    for j in &mut t.joints {
        if j.name.contains('髪') && !j.name.contains("前髪") {
            for i in 12..18 {
                j.set(i, j.get(i) * 0.5);
            }
            if j.name.ends_with('1') {
                j.set_range(6, [-0.2; 3]);
                j.set_range(9, [0.2; 3]);
                j.set_range(18, [50.0; 3]);
            }
        }
    }
}

impl Rig {
    /// The rig built from miku_v2.pmd's bytes.
    ///
    /// # Errors
    /// A file that is not miku_v2.pmd.
    pub fn build(&self, miku_v2: &[u8]) -> Result<Vec<u8>, String> {
        let mut bytes = miku_v2.to_vec();
        let mut t = table(&mut bytes)?;
        (self.edit)(&mut t);
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_other_files() {
        assert!(RIGS[0].build(&[0u8; 100]).is_err());
        assert!(RIGS[0].build(&[0u8; 10_000]).is_err());
    }
}
