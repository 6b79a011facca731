//! Bevy assets read by sinew: models (`.pmx`, `.pmd`, `.glb`, `.gltf`) and VMD motions.

use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, LoadContext};
use bevy::reflect::TypePath;
use sinew_character::{CharacterError, CharacterModel, Motion};

/// A model read by sinew (its skeleton, IK, physics, meshes, morphs and clips), shared by
/// every character of it, and (feature `mesh`) its meshes as Bevy skinned meshes.
#[derive(Asset, TypePath, Debug)]
pub struct SinewModel {
    /// The model.
    pub model: Arc<CharacterModel>,
    /// Its meshes, one part per material of each (labeled assets of this one).
    #[cfg(feature = "mesh")]
    pub parts: Vec<crate::SinewMeshPart>,
    /// Why its meshes could not be made for Bevy (the character still animates), if they
    /// could not.
    #[cfg(feature = "mesh")]
    pub mesh_error: Option<String>,
}

/// A VMD motion. VMD bone names are cut to 15 bytes: they are completed against the model of
/// the character that plays it, so the bytes are kept (checked when loaded).
#[derive(Asset, TypePath, Debug)]
pub struct SinewVmd(pub Arc<[u8]>);

impl SinewVmd {
    /// The motion for `model` (an MMD model).
    ///
    /// # Errors
    /// As [`Motion::from_vmd`].
    pub fn motion_for(&self, model: &CharacterModel) -> Result<Motion, CharacterError> {
        Motion::from_vmd(&self.0, model.mmd().map(|(m, _)| m.as_ref()))
    }
}

async fn read_all(reader: &mut dyn Reader) -> Result<Vec<u8>, CharacterError> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).await?;
    Ok(bytes)
}

/// Reads `.pmx`, `.pmd`, `.glb` and self-contained `.gltf` files into [`SinewModel`]s (load
/// glTF files as `asset_server.load::<SinewModel>(…)` where Bevy's own glTF loader is also
/// registered).
#[derive(Default, TypePath)]
pub struct SinewModelLoader;

impl AssetLoader for SinewModelLoader {
    type Asset = SinewModel;
    type Settings = ();
    type Error = CharacterError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<SinewModel, CharacterError> {
        let bytes = read_all(reader).await?;
        let model = CharacterModel::from_bytes(&bytes)?;
        #[cfg(feature = "mesh")]
        {
            let (parts, mesh_error) = match crate::mesh::build_parts(&model, load_context).await {
                Ok(parts) => (parts, None),
                Err(e) => {
                    bevy::log::warn!("{}: {e}", load_context.path());
                    (Vec::new(), Some(e))
                }
            };
            Ok(SinewModel {
                model,
                parts,
                mesh_error,
            })
        }
        #[cfg(not(feature = "mesh"))]
        {
            let _ = load_context;
            Ok(SinewModel { model })
        }
    }

    fn extensions(&self) -> &[&str] {
        &["pmx", "pmd", "glb", "gltf"]
    }
}

/// Reads `.vmd` files into [`SinewVmd`]s.
#[derive(Default, TypePath)]
pub struct SinewVmdLoader;

impl AssetLoader for SinewVmdLoader {
    type Asset = SinewVmd;
    type Settings = ();
    type Error = CharacterError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        _load_context: &mut LoadContext<'_>,
    ) -> Result<SinewVmd, CharacterError> {
        let bytes = read_all(reader).await?;
        Motion::from_vmd(&bytes, None)?;
        Ok(SinewVmd(bytes.into()))
    }

    fn extensions(&self) -> &[&str] {
        &["vmd"]
    }
}
