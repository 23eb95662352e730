//! The type of a cell's own start fields (`StartVariant`), part of the
//! Plan contract: how [`crate::plan::steps::variant`] resolves them is a build step; what
//! a cell carries is here, beside the model.
use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::plan::{Cell, JavaPlan, RuntimePlan};

/// A runtime's start fields as one cell resolves them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StartVariant {
    pub start: String,
    /// The full environment added for the service (spec-wide, the
    /// runtime's, `PORT`), as [`RuntimePlan::env`].
    pub env: BTreeMap<String, String>,
    pub jvm_flags: Vec<String>,
    pub java: Option<JavaPlan>,
    /// The scratch folder and `files:` rendered for this cell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scratch: Option<crate::plan::ScratchPlan>,
}

impl RuntimePlan {
    /// The runtime as `cell` starts it: its own fields, or the cell's
    /// resolved start fields when they vary per cell.
    pub fn for_cell(&self, cell: &Cell) -> Cow<'_, RuntimePlan> {
        match &cell.variant {
            None => Cow::Borrowed(self),
            Some(v) => Cow::Owned(RuntimePlan {
                start: v.start.clone(),
                env: v.env.clone(),
                jvm_flags: v.jvm_flags.clone(),
                java: v.java.clone(),
                scratch: v.scratch.clone(),
                ..self.clone()
            }),
        }
    }
}
