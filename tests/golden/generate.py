#!/usr/bin/env python3
"""Writes the golden vectors that the tests compare against, from real PyTorch.

    pip install -r tests/golden/requirements.txt
    python3 tests/golden/generate.py                     # every file
    python3 tests/golden/generate.py strides conv3d_x86  # only these
    python3 tests/golden/generate.py --out /tmp/g        # elsewhere, to diff with the committed files

Each family lives in its own module under generators/ (common.py holds the
array encoding, the seed and the writer). Families run in the order below:
some set torch's thread count, which later ones inherit.
"""
import argparse

from generators import (activations, bias_rounding, conv3d, conv_transpose, conv_transpose_int8,
                        depthwise_saturation, eager_flow, export_zoo, fusion, hardtanh, histogram_observer,
                        io_fixtures, layout, memory_formats, models, norms, numeric_suite, observers, onednn_scale,
                        pools, pt2e, qops, quantize, reductions, requant_engines, resample, strides, video_clip,
                        video_resnets, video_transforms, volume, zero_size, zoo3d)
from generators.common import set_output_dir, with_engine, write


def write_with_inputs(name, cases_and_inputs):
    cases, inputs = cases_and_inputs
    write(name, cases, {"inputs": inputs})


# name on the command line -> what it writes
FAMILIES = {
    "quantize": lambda: write("quantize.json", quantize.quantize_cases()),
    "observers": lambda: write_with_inputs("observers.json", observers.observer_cases()),
    "histogram": lambda: write_with_inputs("histogram_observer.json", histogram_observer.histogram_cases()),
    "fusion": lambda: write("fusion.json", fusion.fusion_cases()),
    "qops": lambda: write("qops.json", qops.qops_cases()),
    "pools": lambda: write("pools.json", pools.pool_cases()),
    "memory_formats": lambda: write("memory_formats.json", memory_formats.memory_format_cases()),
    "models": lambda: write("models.json", models.model_cases()),
    # the same flow under PyTorch's default engine: the convs on oneDNN
    "models_x86": lambda: with_engine("x86", lambda: write("models_x86.json", models.model_cases())),
    "conv3d": lambda: write("conv3d.json", conv3d.conv_cases()),
    # PyTorch's default engine: oneDNN's requantization for these convs
    "conv3d_x86": lambda: with_engine("x86", lambda: write("conv3d_x86.json", conv3d.conv_cases())),
    "requant_engines": lambda: write("requant_engines.json", requant_engines.requant_engine_cases()),
    # where FBGEMM's way of adding the bias (per path) decides the integer
    "bias_rounding": lambda: write("bias_rounding.json", bias_rounding.bias_rounding_cases(),
                                   {"eager": bias_rounding.eager_conv_bn_relu_cases()}),
    # where oneDNN's one scale per channel (src * wei as one float) decides the integer, under x86
    "onednn_scale": lambda: with_engine("x86", lambda: write("onednn_scale.json", onednn_scale.onednn_scale_cases())),
    # FBGEMM's depthwise fast path: int16 tap-pair saturation, under fbgemm and x86 (each case names its engine)
    "depthwise_saturation": lambda: write("depthwise_saturation.json",
                                          depthwise_saturation.depthwise_saturation_cases()),
    "eager_flow": lambda: write("eager_flow.json", eager_flow.eager_flow_cases()),
    "eager_flow_x86": lambda: with_engine("x86", lambda: write("eager_flow_x86.json", eager_flow.eager_flow_cases())),
    "video_resnets": lambda: write("video_resnets.json", video_resnets.video_resnet_cases()),
    "video_resnets_x86": lambda: with_engine(
        "x86", lambda: write("video_resnets_x86.json", video_resnets.video_resnet_cases("x86"))),
    "export_zoo": lambda: write("export_zoo.json", export_zoo.export_zoo_cases() + export_zoo.non_finite_cases()
                                                 + export_zoo.float_add_cases()),
    # nn.Hardtanh in exported models: the op that shows adding one (docs/adding-an-op.md)
    "hardtanh": lambda: write("hardtanh.json", hardtanh.hardtanh_cases()),
    # float transposed convs (nn.ConvTranspose*, aten.conv_transpose*): layers and a MONAI decoder block
    "conv_transpose": lambda: write("conv_transpose.json", conv_transpose.conv_transpose_cases()),
    # nnq.ConvTranspose1d/2d/3d from the eager flow, bit for bit; under x86, those PyTorch packs for FBGEMM
    "conv_transpose_int8": lambda: write("conv_transpose_int8.json", conv_transpose_int8.conv_transpose_int8_cases()),
    "conv_transpose_int8_x86": lambda: with_engine("x86", lambda: write(
        "conv_transpose_int8_x86.json", conv_transpose_int8.conv_transpose_int8_cases("x86"))),
    # the element-wise activations: float, and int8 by table in PT2E graphs (needs torchao)
    "activations": lambda: write("activations.json", *activations.activations_cases()),
    # InstanceNorm / GroupNorm / LayerNorm in float models and PT2E float regions
    "norms": lambda: write("norms.json", norms.norms_cases()),
    # permute, transpose, pad and the no-op conversions, float and on the integers (PT2E, eager), and CSN
    "layout": lambda: write("layout.json", *layout.layout_cases()),
    "strides": lambda: write("strides.json", strides.stride_cases()),
    # PyTorch's numeric suite on the video ResNets (after video_resnets: it checks their exported files)
    "numeric_suite": lambda: write("numeric_suite.json", numeric_suite.numeric_suite_cases()),
    # torchao's PT2E flow (needs torchao, requirements.txt): QwasmQuantizer, X86InductorQuantizer, XNNPACKQuantizer
    "pt2e": lambda: write("pt2e.json", pt2e.pt2e_cases()),
    # torchvision's video preprocessing (transforms.VideoClassification)
    "video_transforms": lambda: write("video_transforms.json", video_transforms.video_transform_cases()),
    # a generated video for the demo's video input (needs PyAV, not torch)
    "video_clip": video_clip.write_video_clip,
    "io": io_fixtures.io_fixtures,
    # the 3D CNNs users bring, through the PT2E recipe (needs monai, pytorchvideo, fvcore, iopath: requirements.txt)
    "zoo3d": lambda: write("zoo3d.json", zoo3d.zoo3d_cases()),
    # empty tensors: the output's shape, or that PyTorch raises
    "zero_size": lambda: write("zero_size.json", zero_size.zero_size_cases()),
    # sum / mean / amax / amin / argmax, softmax, float mul / sub / div: on raw tensors and in models (fx and PT2E)
    "reductions": lambda: write("reductions.json", *reductions.golden()),
    # F.interpolate / nn.Upsample: every mode on floats, nearest on QTensors, eager and PT2E models
    "resample": lambda: write("resample.json", *resample.resample_cases()),
    # NIfTI volumes in, labels out: python/qwasm_volume.py's results on small synthetic files
    "volume": lambda: write("volume.json", volume.volume_cases(), dict(zip(("models", "export_errors"),
                                                                            volume.volume_model_cases()))),
}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Writes tests/golden from real PyTorch.")
    parser.add_argument("families", nargs="*", metavar="family",
                        help=f"the files to write (default: all): {', '.join(FAMILIES)}")
    parser.add_argument("--out", help="write into this directory instead of tests/golden")
    args = parser.parse_args()
    unknown = [name for name in args.families if name not in FAMILIES]
    if unknown:
        parser.error(f"unknown family {', '.join(unknown)}; the families are {', '.join(FAMILIES)}")
    if args.out:
        set_output_dir(args.out)
    for name, generate in FAMILIES.items():
        if not args.families or name in args.families:
            generate()
