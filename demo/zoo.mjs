// The model zoo the Model view opens: the 3D CNNs users bring, exported with
// random weights through the PT2E recipe (tests/golden/generators/zoo3d.py;
// their files are the goldens' own, tests/golden/exported/zoo3d_*.qwasm.safetensors).
// tests/browser/demo.test.mjs checks that this list names every one of them.
export const ZOO = [
  { file: 'zoo3d_meshnet.qwasm.safetensors', name: 'MeshNet (brainchop-style dilated 3D CNN), segmentation' },
  { file: 'zoo3d_c3d.qwasm.safetensors', name: 'C3D (1/4 width), video classification' },
];

/** The URL of a zoo model's file, relative to this page. */
export const zooUrl = (entry) => new URL(`../tests/golden/exported/${entry.file}`, import.meta.url).href;
