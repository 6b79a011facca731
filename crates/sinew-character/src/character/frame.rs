//! The frame as stages over a block of characters of one model: every character's input
//! (sample, blend, morphs, MMD's input rules, IK switches), then every character's
//! evaluation before physics (pose constraints → hierarchy → IK), props, the physics stage,
//! the evaluation after physics. Each stage runs over the whole block before the next
//! starts; a [`Character`] is a block of one through the same code, a
//! [`Crowd`](crate::Crowd) runs its dancers in blocks.
//!
//! The IK and physics stages take the block too: today they solve and step dancer by dancer
//! inside it, each dancer exactly as alone (same operations, same order).

use glam::Affine3A;
use sinew::Writeback;

use super::Character;
use crate::CharacterError;

/// What runs in a frame's physics stage, for every character of a block.
pub(crate) enum PhysicsStage<'a> {
    /// Each character's ragdoll, when enabled, advancing `dt` seconds.
    Ragdoll(f32),
    /// A host's own step over the world matrices ([`Writeback::World`]), called with each
    /// character's index in the block.
    Host(&'a mut dyn FnMut(usize, &mut [Affine3A])),
}

/// Evaluates the frame of every character of `block` at its time (`times[i]` for
/// `block[i]`), stage by stage. Stops at the first error (the characters of the block then
/// hold a partly evaluated frame, as one character alone does).
///
/// # Errors
/// [`CharacterError::Invalid`] for a time that is not finite or a ragdoll `dt` that is
/// negative or not finite (before any stage runs); what props and physics return.
pub(crate) fn run_block(
    block: &mut [Character],
    times: &[f32],
    mut physics: PhysicsStage<'_>,
) -> Result<(), CharacterError> {
    debug_assert_eq!(block.len(), times.len());
    if let Some(&time) = times.iter().find(|t| !t.is_finite()) {
        return Err(CharacterError::invalid("time", "finite", time));
    }
    if let PhysicsStage::Ragdoll(dt) = physics {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(CharacterError::invalid("dt", "finite and >= 0", dt));
        }
    }
    input_stage(block, times, &physics);
    for c in block.iter_mut() {
        let writeback = c.writeback.unwrap_or_default();
        c.instance.evaluate_before_physics(writeback);
    }
    props_stage(block)?;
    physics_stage(block, times, &mut physics)?;
    for c in block.iter_mut() {
        if let Some(writeback) = c.writeback {
            c.instance.evaluate_after_physics(writeback);
        }
        c.evaluated = true;
        c.skinned = false;
    }
    Ok(())
}

/// Every character's animated input at its time, and the one writeback of its frame: the
/// enabled ragdoll's, [`Writeback::World`] for a host's step, none without physics.
fn input_stage(block: &mut [Character], times: &[f32], physics: &PhysicsStage<'_>) {
    for (c, &time) in block.iter_mut().zip(times) {
        c.time = time;
        c.clock = f64::from(time);
        c.apply_input(time);
        c.writeback = match physics {
            PhysicsStage::Ragdoll(_) => (c.physics.as_ref())
                .filter(|p| p.enabled)
                .map(|p| p.ragdoll.options().writeback),
            PhysicsStage::Host(_) => Some(Writeback::World),
        };
    }
}

/// Every character's props (anchors and limbs) over its evaluated pose.
fn props_stage(block: &mut [Character]) -> Result<(), CharacterError> {
    for c in block.iter_mut() {
        if let Some(props) = &mut c.props {
            props.solve(c.instance.state_mut())?;
        }
    }
    Ok(())
}

/// The physics stage over the block: each enabled ragdoll steps (drive, fixed steps,
/// writeback into the character's state), or the host's step writes the world matrices.
fn physics_stage(
    block: &mut [Character],
    times: &[f32],
    physics: &mut PhysicsStage<'_>,
) -> Result<(), CharacterError> {
    for (i, (c, &time)) in block.iter_mut().zip(times).enumerate() {
        if c.writeback.is_none() {
            continue;
        }
        match physics {
            PhysicsStage::Ragdoll(dt) => {
                if let Some(p) = c.physics.as_mut().filter(|p| p.enabled) {
                    p.ragdoll.step(c.instance.state_mut(), time, *dt)?;
                }
            }
            PhysicsStage::Host(step) => step(i, c.instance.state_mut().allocate_world()),
        }
    }
    Ok(())
}
