//! Diamond closures: two chains solved jointly towards one point.

use super::DynamicsError;

/// Two POSITION chains that must meet at a shared point (a closed linkage).
///
/// The two bases should coincide at bind and drive separate hierarchies; both endpoints stand
/// for the same closure point. Solving starts from the midpoint of the two chains' targets.
#[derive(Clone, Debug, PartialEq)]
pub struct DiamondConstraint {
    name: String,
    first: String,
    second: String,
    iterations: u32,
    tolerance: f32,
}

impl DiamondConstraint {
    /// A closure with `iterations = 32`, `tolerance = 1e-4`.
    ///
    /// # Errors
    /// As [`Self::with_params`].
    pub fn new(
        name: impl Into<String>,
        first: impl Into<String>,
        second: impl Into<String>,
    ) -> Result<Self, DynamicsError> {
        Self::with_params(name, first, second, 32, 1e-4)
    }

    /// A closure with explicit parameters.
    ///
    /// # Errors
    /// [`DynamicsError::BlankName`] for a blank name or chain name,
    /// [`DynamicsError::DiamondSameChain`] when both chains are the same, and
    /// [`DynamicsError::InvalidParameter`] for iterations outside `1..=256` or a non-finite or
    /// non-positive tolerance.
    pub fn with_params(
        name: impl Into<String>,
        first: impl Into<String>,
        second: impl Into<String>,
        iterations: u32,
        tolerance: f32,
    ) -> Result<Self, DynamicsError> {
        let (name, first, second) = (name.into(), first.into(), second.into());
        if name.trim().is_empty() {
            return Err(DynamicsError::BlankName { what: "diamond" });
        }
        if first.trim().is_empty() || second.trim().is_empty() {
            return Err(DynamicsError::BlankName {
                what: "diamond chain",
            });
        }
        if first == second {
            return Err(DynamicsError::DiamondSameChain {
                diamond: name,
                chain: first,
            });
        }
        if !(1..=256).contains(&iterations) {
            return Err(DynamicsError::InvalidParameter {
                what: "diamond",
                name,
                field: "iterations",
                value: iterations.to_string(),
                expected: "1..=256",
            });
        }
        if !(tolerance.is_finite() && tolerance > 0.0) {
            return Err(DynamicsError::InvalidParameter {
                what: "diamond",
                name,
                field: "tolerance",
                value: tolerance.to_string(),
                expected: "finite and > 0",
            });
        }
        Ok(Self {
            name,
            first,
            second,
            iterations,
            tolerance,
        })
    }

    /// The closure's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// First branch chain name.
    #[must_use]
    pub(crate) fn first_chain(&self) -> &str {
        &self.first
    }

    /// Second branch chain name.
    #[must_use]
    pub(crate) fn second_chain(&self) -> &str {
        &self.second
    }

    /// Iteration cap.
    #[must_use]
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Closure tolerance (distance).
    #[must_use]
    pub fn tolerance(&self) -> f32 {
        self.tolerance
    }
}
