// A model file's checked preprocessing record as its transform: the record a
// VolumeSegmentation reads has an orientation (model/description.mjs reads one
// of the two shapes). The entries hand this to the loader
// (setTransformsFactory), so that the model worker's bundle leaves
// VolumeSegmentation out.
import { VideoClassification } from './video-classification.mjs';
import { VolumeSegmentation } from './volume-segmentation.mjs';

export function transformFromRecord(preprocessing) {
  return preprocessing.orientation !== undefined
    ? new VolumeSegmentation(preprocessing)
    : new VideoClassification(preprocessing);
}
