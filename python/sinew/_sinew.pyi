"""Type stubs for sinew's native module (``sinew._sinew``); the API is re-exported by ``sinew``."""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, "os.PathLike[str]"]

class SinewError(Exception):
    """Bad input: a file that cannot be read or parsed, an unknown name, a value out of range.

    The message is one line naming the file or argument first, as the ``sinew`` CLI prints it.
    """

class Motion:
    """A motion to play: a VMD (:meth:`Model.load_motion`) or a glTF clip (:meth:`Model.clip`)."""

    @property
    def duration(self) -> float:
        """Length in seconds (the time of the last key)."""
    @property
    def fps(self) -> Optional[float]:
        """Frames per second the motion is keyed at (30 for VMD), or None (glTF clips)."""

class Model:
    """A model read from a PMX, PMD, glTF or GLB file, shared by any number of characters.

    Bones are listed in the file's order: ``bone_names[i]``, ``parents[i]`` and row ``i`` of
    every per-bone array describe the same bone.
    """

    def __init__(self, path: _Path, *, evaluation: Optional[str] = None) -> None:
        """Loads a model. ``evaluation`` ("staged" or "bone-by-bone", MMD only) overrides the
        evaluation order; by default staged where that expresses the model whole.

        Raises :class:`SinewError` naming the file for anything unreadable."""
    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> str:
        """``"mmd"`` (PMX, PMD) or ``"gltf"`` (glTF, GLB)."""
    @property
    def name(self) -> str:
        """The model's name (MMD: as the file names it)."""
    @property
    def bone_names(self) -> List[str]:
        """Bone names, in the file's order."""
    @property
    def parents(self) -> npt.NDArray[np.int32]:
        """Each bone's parent (an index into ``bone_names``), -1 for a root."""
    @property
    def morph_names(self) -> List[str]:
        """Morph names: the columns of ``morphs`` arrays."""
    @property
    def ik_chains(self) -> List[str]:
        """IK chain names (MMD: the IK bones' names)."""
    @property
    def clip_count(self) -> int:
        """How many clips the file carries (glTF animations; 0 for MMD models)."""
    @property
    def has_physics(self) -> bool:
        """Whether the model has rigid bodies (MMD table, glTF candidates)."""
    @property
    def mesh_vertex_counts(self) -> List[int]:
        """Vertices of each mesh, in the order ``vertices`` arrays concatenate them."""
    @property
    def mesh_names(self) -> List[str]: ...
    def triangles(self, mesh: int) -> npt.NDArray[np.uint32]:
        """Mesh ``mesh``'s triangles, ``[triangles, 3]`` vertex indices into that mesh."""
    def load_motion(self, path: _Path) -> Motion:
        """Reads a VMD motion for this (MMD) model."""
    def clip(self, index: int) -> Motion:
        """The file's clip ``index`` (glTF animations)."""
    def with_ik_chains(self, chains: Sequence[Dict[str, object]]) -> Model:
        """A model with IK chains added: dicts with ``name``, ``links`` (base to tip),
        ``effector``, ``solver`` ("two-bone", "fabrik", "ccd"; default "two-bone" for two links,
        else "fabrik"), ``pole`` (two-bone: the bend direction in the root's frame)."""

class Character:
    """One character of a :class:`Model` in motion, evaluated into NumPy arrays.

    World matrices are 4×4 with the translation in the last column, in the model's space (MMD:
    left-handed model units; glTF: relative to the scene root).
    """

    def __init__(
        self,
        model: Model,
        motion: Optional[Motion] = None,
        *,
        physics: bool = False,
        dynamic: Optional[Sequence[str]] = None,
        max_frames: int = 36000,
        max_memory_mb: int = 2048,
    ) -> None:
        """``max_frames`` and ``max_memory_mb`` bound every call as the CLI's ``--max-frames``
        and ``--max-memory-mb`` do (same defaults); a call past either raises
        :class:`SinewError` before any work."""
    max_frames: int
    """Most frames one call evaluates or simulates (the CLI's ``--max-frames``, default
    36,000): with physics, every frame from the last one simulated up to the last asked for."""
    max_memory_mb: int
    """Most MiB one call returns or bakes (the CLI's ``--max-memory-mb``, default 2,048)."""
    @property
    def model(self) -> Model: ...
    def play(self, motion: Motion) -> None:
        """Plays ``motion`` alone, from time 0."""
    def stop(self) -> None:
        """Stops every motion: the rest pose."""
    @property
    def duration(self) -> float:
        """The end of what plays, in seconds."""
    @property
    def time(self) -> float:
        """The time of the last evaluated frame, in seconds (a 64-bit clock: ``advance``
        keeps moving it however long the character plays)."""
    @property
    def unmatched_bones(self) -> List[str]:
        """Motion bones the model does not have."""
    stages: str
    """Which stages run: "fk", "grant" (+ pose constraints), "ik" (+ IK), "full" (default)."""
    def set_ik_target(
        self, chain: str, position: Sequence[float], weight: float = 1.0
    ) -> None:
        """Chain ``chain`` reaches for ``position`` (model space), blended by ``weight``."""
    def clear_ik_target(self, chain: str) -> bool: ...
    def set_ik_enabled(self, chain: str, enabled: Optional[bool]) -> None: ...
    def set_morph_weight(self, name: str, weight: Optional[float]) -> None: ...
    def enable_physics(self, dynamic: Optional[Sequence[str]] = None) -> None:
        """Turns physics on (glTF: the subtrees of ``dynamic`` hang under physics; default:
        chains named like hair, tail, skirt, ...)."""
    def disable_physics(self) -> None: ...
    def reset_physics(self) -> None:
        """Restarts the simulation from the next frame's pose, frames counted from 0."""
    @property
    def physics(self) -> bool: ...
    def evaluate(
        self,
        frames: Optional[Sequence[int]] = None,
        *,
        times: Optional[Sequence[float]] = None,
        fps: float = 30.0,
        world: bool = True,
        morphs: bool = True,
        vertices: bool = False,
    ) -> Dict[str, npt.NDArray[np.float32]]:
        """Evaluates frames (numbers at ``fps``) or times (seconds); returns ``"times"``
        ``[F]``, ``"world"`` ``[F, bones, 4, 4]``, ``"morphs"`` ``[F, morphs]``,
        ``"vertices"`` ``[F, vertices, 3]``. With neither, every frame of what plays. Physics
        frames are simulated in order. The count (a sequence's ``len()``, a range never
        materialised; the whole motion's from its end), the frames physics simulates and the
        bytes returned are checked against ``max_frames`` / ``max_memory_mb`` first. Releases
        the GIL; hears Ctrl-C."""
    def advance(self, dt: float) -> None:
        """Advances by ``dt`` seconds and evaluates one frame."""
    def world(self) -> npt.NDArray[np.float32]:
        """The last frame's world matrices, ``[bones, 4, 4]``."""
    def vertices(self) -> npt.NDArray[np.float32]:
        """The last frame's skinned vertices, ``[vertices, 3]``."""
    def morph_weights(self) -> npt.NDArray[np.float32]:
        """The last frame's morph weights."""
    def bake(
        self, path: _Path, *, fps: float = 30.0, frames: Optional[int] = None
    ) -> List[str]:
        """Evaluates ``frames`` frames (default: all of what plays) from time 0 and writes them
        as a ``.glb`` animation; returns warnings. The count and an estimate of the bake's
        memory are checked against ``max_frames`` / ``max_memory_mb`` first; hears Ctrl-C."""

class Camera:
    """A VMD camera, played the way babylon-mmd's ``MmdCamera`` plays it: a Bézier curve per
    channel, and a cut where two keys sit on consecutive frames (the first holds, then the
    camera jumps). Values are in MMD's left-handed space and units, like MMD characters'
    world matrices."""

    def __init__(self, path: _Path, *, max_frames: int = 36000, max_memory_mb: int = 2048) -> None:
        """Reads the camera keys of a VMD file. Raises :class:`SinewError` naming the file when
        it cannot be read or parsed, or has no camera keys. ``max_frames`` and
        ``max_memory_mb`` bound each ``evaluate`` as they bound a :class:`Character`'s."""
    max_frames: int
    """Most frames one ``evaluate`` samples (the CLI's ``--max-frames``, default 36,000)."""
    max_memory_mb: int
    """Most MiB one ``evaluate`` returns (the CLI's ``--max-memory-mb``, default 2,048)."""
    @property
    def path(self) -> str: ...
    @property
    def duration(self) -> float:
        """Seconds from 0 to the last key."""
    @property
    def key_frames(self) -> List[int]:
        """The keys' frame numbers (30 fps), sorted."""
    @property
    def cuts(self) -> List[int]:
        """The frames the camera jumps at (a key on the frame after another)."""
    def evaluate(
        self,
        frames: Optional[Sequence[float]] = None,
        *,
        times: Optional[Sequence[float]] = None,
        fps: float = 30.0,
    ) -> Dict[str, npt.NDArray[Union[np.float32, np.bool_]]]:
        """Samples frames (numbers at ``fps``, fractions allowed) or times (seconds); returns
        float32 ``"times"`` ``[F]``, ``"eye"``, ``"target"``, ``"up"``, ``"forward"``,
        ``"rotation"`` ``[F, 3]``, ``"fov"`` (vertical, radians) and ``"distance"`` ``[F]``,
        ``"view"`` ``[F, 4, 4]`` (world → camera, translation in the last column), and bool
        ``"perspective"`` ``[F]``. With neither, every frame from 0 to the last key."""
