// qwasm.transforms: torchvision's preprocessing presets, and a segmentation model's volumes in and labels out.
export { KINETICS_MEAN, KINETICS_STD, VideoClassification } from './video-classification.mjs';
export { VolumeSegmentation } from './volume-segmentation.mjs';
