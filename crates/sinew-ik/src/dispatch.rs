//! Each public solver is compiled twice: for the build's target and, on x86-64, for AVX2,
//! chosen at run time by what the CPU has. The AVX2 copy runs the same IEEE operations in
//! the same order (Rust never fuses a multiply and an add on its own), so both give the same
//! bits — `tests` below compare them — and the copy is only shorter machine code: three-
//! operand instructions without the register copies SSE2 needs, which the solvers' dependent
//! chains of small vector operations feel (BENCHMARKS.md has the figures).

/// Defines `$vis fn $name(args) -> ret` running `$body` (an `#[inline(always)]` function of the
/// same arguments) from an AVX2-compiled copy when the CPU supports AVX2, else as built.
/// Also defines `$portable`, the plain build, for the equivalence tests.
macro_rules! avx2_dispatch {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident / $portable:ident ($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty => $body:path
    ) => {
        $(#[$meta])*
        // Inlined into the caller: the check and one call to whichever build runs.
        #[inline]
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) -> $ret {
                    $body($($arg),*)
                }
                if std::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2, the only feature `avx2` is built for.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $portable($($arg),*)
        }

        /// The solver as built for the target (without AVX2): the fallback, and the
        /// reference of the equivalence tests.
        #[inline(never)]
        pub(crate) fn $portable($($arg: $ty),*) -> $ret {
            $body($($arg),*)
        }
    };
}

pub(crate) use avx2_dispatch;

#[cfg(test)]
mod tests {
    //! The dispatched solvers (AVX2 on a CPU that has it) against their portable builds, bit
    //! for bit, on random inputs covering each solver's options.

    use core::f32::consts::PI;

    use glam::{Quat, Vec3};

    use crate::aim::solve_aim_portable;
    use crate::ccd::solve_ccd_portable;
    use crate::fabrik::solve_fabrik_portable;
    use crate::test_rng::Rng;
    use crate::two_bone::solve_two_bone_portable;
    use crate::*;

    fn bits(qs: &[Quat]) -> Vec<u32> {
        qs.iter()
            .flat_map(|q| q.to_array().map(f32::to_bits))
            .collect()
    }

    fn chain(rng: &mut Rng, n: usize) -> Vec<ChainJoint> {
        let mut p = rng.vec(1.0);
        (0..=n)
            .map(|_| {
                let j = ChainJoint::new(p, rng.quat());
                p += rng.vec(0.5);
                j
            })
            .collect()
    }

    #[test]
    fn aim_builds_agree() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for k in 0..4000 {
            let cone = (k % 3 == 0).then(|| rng.range(0.0, PI));
            let weight = if k % 4 == 0 { rng.unit() } else { 1.0 };
            let twist = if k % 5 == 0 {
                rng.range(-3.0, 3.0)
            } else {
                0.0
            };
            let params = AimParams::new(
                rng.vec(1.0) + Vec3::splat(1e-3),
                rng.vec(1.0) + Vec3::splat(1e-3),
                rng.vec(0.2),
                twist,
                weight,
                cone,
            )
            .unwrap();
            let joint = ChainJoint::new(rng.vec(2.0), rng.quat());
            let target = joint.position + rng.vec(3.0);
            let pole = if k % 7 == 0 { Vec3::ZERO } else { rng.vec(1.0) };
            let a = solve_aim(&joint, target, pole, &params).unwrap();
            let b = solve_aim_portable(&joint, target, pole, &params).unwrap();
            assert_eq!(bits(&[a.correction]), bits(&[b.correction]), "case {k}");
            assert_eq!(a.angle_error.to_bits(), b.angle_error.to_bits(), "case {k}");
            assert_eq!(a.reached, b.reached, "case {k}");
        }
    }

    #[test]
    fn two_bone_builds_agree() {
        let mut rng = Rng(7);
        for k in 0..4000 {
            let c = chain(&mut rng, 2);
            let joints = [c[0], c[1], c[2]];
            let params =
                TwoBoneParams::new(rng.unit(), rng.range(0.0, 1.0), rng.range(0.0, 0.1)).unwrap();
            let target = rng.vec(2.0);
            let rotation = (k % 2 == 0).then(|| rng.quat());
            let pole = rng.vec(1.0);
            let a = solve_two_bone(&joints, target, rotation, pole, &params);
            let b = solve_two_bone_portable(&joints, target, rotation, pole, &params);
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(bits(&a.corrections), bits(&b.corrections), "case {k}");
                    assert_eq!(a.short.to_bits(), b.short.to_bits(), "case {k}");
                }
                (a, b) => assert_eq!(a.is_err(), b.is_err(), "case {k}"),
            }
        }
    }

    #[test]
    fn fabrik_builds_agree() {
        let mut rng = Rng(11);
        let (mut sa, mut sb) = (FabrikScratch::new(), FabrikScratch::new());
        for k in 0..600 {
            let n = 1 + k % 9;
            let joints = chain(&mut rng, n);
            let links: Vec<FabrikLink> = (0..n)
                .map(|i| match (k / 9 + i) % 4 {
                    0 => FabrikLink::FREE,
                    1 => FabrikLink::with_joint(IkJoint::Rotor(
                        Rotor::new(rng.range(0.1, 2.0)).unwrap(),
                    )),
                    2 => {
                        let axis = rng.vec(1.0).normalize_or(Vec3::Z);
                        FabrikLink::with_joint(IkJoint::Hinge(
                            Hinge::new(axis, axis.any_orthonormal_vector(), -1.5, 1.0).unwrap(),
                        ))
                    }
                    _ => FabrikLink::with_limit(
                        RotationLimit::new(Vec3::splat(-0.8), Vec3::splat(0.6)).unwrap(),
                    ),
                })
                .collect();
            let params =
                FabrikParams::new(1 + (k as u32 % 40), 1e-3, if k % 3 == 0 { 0.3 } else { PI })
                    .unwrap();
            let target = rng.vec(3.0);
            let (mut ca, mut cb) = (vec![Quat::IDENTITY; n], vec![Quat::IDENTITY; n]);
            let a = solve_fabrik(&joints, &links, target, &params, &mut sa, &mut ca).unwrap();
            let b =
                solve_fabrik_portable(&joints, &links, target, &params, &mut sb, &mut cb).unwrap();
            assert_eq!(bits(&ca), bits(&cb), "case {k}");
            assert_eq!(a.residual.to_bits(), b.residual.to_bits(), "case {k}");
            assert_eq!(a.iterations, b.iterations, "case {k}");
        }
    }

    #[test]
    fn ccd_builds_agree() {
        let mut rng = Rng(13);
        let (mut sa, mut sb) = (CcdScratch::new(), CcdScratch::new());
        for k in 0..600 {
            let n = 1 + k % 5;
            let joints = chain(&mut rng, n);
            let links: Vec<CcdLink> = (0..n)
                .map(|i| CcdLink {
                    position: joints[i].position,
                    rotation: joints[i].rotation,
                    local_rotation: if k % 2 == 0 {
                        Quat::IDENTITY
                    } else {
                        rng.quat()
                    },
                    limit: match (k / 5 + i) % 3 {
                        0 => None,
                        1 => Some(
                            RotationLimit::new(
                                Vec3::new(-PI, 0.0, 0.0),
                                Vec3::new(-0.01, 0.0, 0.0),
                            )
                            .unwrap(),
                        ),
                        _ => Some(RotationLimit::new(Vec3::splat(-0.7), Vec3::splat(0.9)).unwrap()),
                    },
                })
                .collect();
            let params =
                CcdParams::new(1 + (k as u32 % 40), rng.range(0.1, 2.5), 1e-4 * rng.unit())
                    .unwrap();
            let (effector, target) = (joints[n].position, rng.vec(3.0));
            let (mut ca, mut cb) = (vec![Quat::IDENTITY; n], vec![Quat::IDENTITY; n]);
            let a = solve_ccd(&links, effector, target, &params, &mut sa, &mut ca).unwrap();
            let b =
                solve_ccd_portable(&links, effector, target, &params, &mut sb, &mut cb).unwrap();
            assert_eq!(bits(&ca), bits(&cb), "case {k}");
            assert_eq!(a.residual.to_bits(), b.residual.to_bits(), "case {k}");
            assert_eq!(a.iterations, b.iterations, "case {k}");
        }
    }
}
