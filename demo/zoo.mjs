// The model zoo the Model view opens: the 3D CNNs users bring, exported with
// random weights through the PT2E recipe (tests/models/zoo3d_models.py,
// tests/golden/generators/zoo3d.py; their files are the goldens' own,
// tests/golden/exported/zoo3d_*.qwasm.safetensors).
// tests/browser/demo.test.mjs checks that this list names every one of them.
export const ZOO = [
  { file: 'zoo3d_monai_unet.qwasm.safetensors', name: 'MONAI UNet, segmentation' },
  { file: 'zoo3d_monai_basicunet.qwasm.safetensors', name: 'MONAI BasicUNet, segmentation' },
  { file: 'zoo3d_monai_dynunet.qwasm.safetensors', name: "MONAI DynUNet (nnU-Net's), segmentation" },
  { file: 'zoo3d_monai_segresnet.qwasm.safetensors', name: 'MONAI SegResNet, segmentation' },
  { file: 'zoo3d_meshnet.qwasm.safetensors', name: 'MeshNet (brainchop-style dilated 3D CNN), segmentation' },
  { file: 'zoo3d_unet3d.qwasm.safetensors', name: '3D U-Net (Cicek et al.), segmentation' },
  { file: 'zoo3d_c3d.qwasm.safetensors', name: 'C3D (1/4 width), video classification' },
  { file: 'zoo3d_s3d.qwasm.safetensors', name: 'torchvision S3D (its first blocks and head), video classification' },
  { file: 'zoo3d_x3d_xs.qwasm.safetensors', name: 'pytorchvideo X3D-XS, video classification' },
  { file: 'zoo3d_csn.qwasm.safetensors', name: 'pytorchvideo CSN (1/4 width), video classification' },
];

/** The URL of a zoo model's file, relative to this page. */
export const zooUrl = (entry) => new URL(`../tests/golden/exported/${entry.file}`, import.meta.url).href;
