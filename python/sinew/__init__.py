"""sinew: skeleton dynamics for PMX, PMD and glTF characters, from Python.

Load a model, play a motion, set IK targets, turn physics on, and evaluate many frames in one
call into NumPy arrays — world matrices ``[frames, bones, 4, 4]``, morph weights
``[frames, morphs]``, skinned vertices ``[frames, vertices, 3]`` — or bake a ``.glb``::

    import sinew

    model = sinew.Model("miku_v2.pmd")
    dance = model.load_motion("wavefile_v2.vmd")
    miku = sinew.Character(model, dance, physics=True)
    out = miku.evaluate(range(300))            # 10 s at 30 fps, simulated in order
    head = model.bone_names.index("頭")
    print(out["world"][:, head, :3, 3])        # the head's path, [300, 3]

A VMD camera plays the same way: ``sinew.Camera("wavefile_camera.vmd").evaluate(range(300))``
gives the eye, axes, field of view and view matrices per frame, cuts included.

Bad input raises :class:`SinewError` with a one-line message naming the file. Evaluation
releases the GIL, so threads evaluate characters in parallel. :mod:`sinew.batch` spreads a
library of motions over a Ray cluster.
"""

from ._sinew import Camera, Character, Model, Motion, SinewError, __version__

__all__ = ["Camera", "Character", "Model", "Motion", "SinewError", "__version__"]
