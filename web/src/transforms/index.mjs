// qwasm.transforms: torchvision's preprocessing presets, for a model's input.
export { KINETICS_MEAN, KINETICS_STD, VideoClassification } from './video-classification.mjs';
