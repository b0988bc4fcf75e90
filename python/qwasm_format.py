"""The qwasm-model file, as both exporters write it and io.loadModel reads it.

What every op shares and no op owns: the format's name and version, the
error an export raises, the writer of the file's tensors, the conversions of
field values (`ints`, `float32_scalar`), the loader's rules applied before a
file is written (`check_loadable`: names, qparams, finite values, the
example input's shape, JSON without NaN), the header's optional entries
(preprocessing, class names) and `save`. What each op writes is its
descriptor's, in qwasm_ops.py; the eager exporter (qwasm_export.py) and the
PT2E lowering (qwasm_pt2e.py) both build on these two modules and neither
imports the other's internals.

Imports without torch (the vocabulary test and `qwasm-export --help` run
where it is missing); writing a file needs it.
"""

import json
import os
import math
import re

try:
    import torch
except ModuleNotFoundError as e:
    if e.name != "torch":
        raise
    torch = None

FORMAT = "qwasm-model"
FORMAT_VERSION = 2  # 2: the engine and each quantized conv's backend


class ExportError(Exception):
    """A model qwasm cannot run: the message names the op and where it is."""


# What an error about an op qwasm does not have ends with: where the ops are listed (the npm package
# ships the file; scripts/ops_doc.py writes it from the op descriptors).
OPS_DOC = "docs/ops.md (in the qwasm package) lists every op qwasm runs, and what to do about one it lacks"


# -- field values -----------------------------------------------------------

def ints(v, dims=None):
    """A list of ints; a single int, or a list of one, repeated `dims` times
    (PyTorch's _triple / _pair, and ATen's expand_param_if_needed)."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1 and dims:
            return [int(v[0])] * dims
        return [int(x) for x in v]
    return [int(v)] * (dims or 1)


def float32_scalar(value, where):
    """A Python number as the float32 PyTorch adds to a float32 tensor (a
    wrapped number takes the tensor's dtype), refused where JSON cannot hold
    it (NaN, +-Inf, or a value float32 rounds to +-Inf)."""
    if not isinstance(value, (bool, int, float)):
        raise ExportError(f"{where}: a float add of {value!r} ({type(value).__name__}); qwasm adds tensors and numbers")
    f = float(torch.tensor(value).to(torch.float32))
    if not math.isfinite(f):
        raise ExportError(f"{where}: adds the constant {value!r}, which is {f} as float32: the model file's JSON "
                          "cannot hold a non-finite number")
    return f


# -- tensors ----------------------------------------------------------------

class Writer:
    """The file's tensors by name, as the modules' entries refer to them."""

    def __init__(self):
        self.tensors = {}

    def add(self, name, tensor):
        if name in self.tensors:
            raise ExportError(f"two tensors named '{name}'")
        # A copy: safetensors refuses tensors that share memory, as the same
        # weight written for two modules would (a module called twice, tied weights).
        self.tensors[name] = tensor.detach().cpu().contiguous().clone()
        return name

    def qweight(self, path, w):
        """A quantized weight: its integers, and its qparams (tensors for per channel)."""
        if w.dtype != torch.qint8:
            raise ExportError(f"{path}: weight dtype {w.dtype} is not supported (qint8 only)")
        entry = {"ints": self.add(f"{path}.weight", w.int_repr())}
        if w.qscheme() in (torch.per_channel_affine, torch.per_channel_symmetric):
            entry["qscheme"] = "per_channel_affine"
            entry["axis"] = int(w.q_per_channel_axis())
            entry["scales"] = self.add(f"{path}.weight.scales", w.q_per_channel_scales().to(torch.float64))
            entry["zero_points"] = self.add(f"{path}.weight.zero_points", w.q_per_channel_zero_points().to(torch.int64))
        elif w.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
            entry["qscheme"] = "per_tensor_affine"
            entry["scale"] = float(w.q_scale())
            entry["zero_point"] = int(w.q_zero_point())
        else:
            raise ExportError(f"{path}: weight qscheme {w.qscheme()} is not supported")
        return entry

    def bias(self, path, b):
        return None if b is None else self.add(f"{path}.bias", b.detach().to(torch.float32))


# -- the loader's rules (web/src/model/*.mjs), applied before a file is written --

MAX_NAME = 1000  # format-readers.mjs MAX_NAME: node, module and tensor names
_MODULE_PATH = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*")  # load.mjs: a module path is a dotted name
# graph-module.mjs RESERVED_NAMES: no part of a module path may be a name the
# loaded GraphModule, its modules or any JS object already has
# (tests/js/model/vocabulary.test.mjs checks that the lists agree).
RESERVED_NAMES = (
    "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "__proto__", "apply", "children",
    "classes", "constructor", "depthStreamPlan", "dispose", "engine", "eval", "forward", "forwardQuantized",
    "getSubmodule", "hasOwnProperty", "inputShape", "isPrototypeOf", "modules", "namedChildren", "namedModules",
    "nodes", "preprocessing", "profile", "propertyIsEnumerable", "toLocaleString", "toString", "train", "training",
    "transforms", "valueOf", "weightBytes",
)
_MAX_INPUT_SIZE = 2 ** 31 - 1  # load.mjs: each dimension of input_shape
_MAX_INPUT_RANK = 16


def _name_length(name):
    """A name's length as JavaScript counts it (UTF-16 code units)."""
    return len(name.encode("utf-16-le")) // 2


def _quoted(name):
    """'name' for a message, cut short (as the loader's quote())."""
    return f"'{name}'" if len(name) <= 60 else f"'{name[:40]}...' ({len(name)} characters)"


def _check_module_path(path):
    if _name_length(path) > MAX_NAME:
        raise ExportError(f"module {_quoted(path)}: its path is over {MAX_NAME} characters, qwasm's limit for "
                          "names in a model file; give the module a shorter name")
    if not _MODULE_PATH.fullmatch(path):
        raise ExportError(f"module {_quoted(path)}: qwasm's model files name modules with ASCII letters, digits and "
                          "underscores between dots; rename the module (e.g. to a Python identifier in ASCII)")
    for part in path.split("."):
        if part in RESERVED_NAMES:
            raise ExportError(f"module {_quoted(path)}: '{part}' is a name qwasm's loaded model already has "
                              f"(the module would be its property); rename the module")


def check_scale(scale, what):
    """A scale as qwasm's core checks it (qtensor.cpp validate_scale): finite > 0, and so as float32."""
    f = float(torch.tensor(scale, dtype=torch.float64).to(torch.float32))
    if not (math.isfinite(scale) and scale > 0):
        raise ExportError(f"{what} is {scale}: qwasm needs a finite scale > 0")
    if not (math.isfinite(f) and f > 0):
        raise ExportError(f"{what} is {scale}, which is {f} as float32: qwasm's kernels compute with float32 "
                          "scales and need one that is finite and > 0")


def check_zero_point(zp, lo, hi, what):
    if isinstance(zp, bool) or not isinstance(zp, int) or not lo <= zp <= hi:
        raise ExportError(f"{what} is {zp!r}: qwasm needs an integer in {lo}..{hi}")


def check_finite(tensor, what, why):
    """Every element finite (tensor: a float tensor of the writer)."""
    bad = (~torch.isfinite(tensor)).nonzero()
    if len(bad):
        index = bad[0].tolist()
        raise ExportError(f"{what}[{', '.join(map(str, index))}] is {float(tensor[tuple(index)])}: {why}")


def _check_node(node, check_op):
    """A node's names and constants as the loader reads them (load.mjs checkGraph), then its op's own checks."""
    where = f"node {_quoted(node['name'])}"
    if not node["name"] or _name_length(node["name"]) > MAX_NAME:
        raise ExportError(f"{where}: its name is over {MAX_NAME} characters, qwasm's limit for names in a model "
                          "file; give the module or value it comes from a shorter name")

    def constants(a):
        if isinstance(a, (list, tuple)):
            for x in a:
                yield from constants(x)
        elif isinstance(a, float):
            yield a

    for v in constants([node["args"], list(node["kwargs"].values())]):
        if not math.isfinite(v):
            raise ExportError(f"{where}: the constant {v} ({node['target']}): the model file's JSON cannot hold a "
                              "non-finite number")
    check_op(where, node)


def check_loadable(modules, nodes, tensors, input_shape, *, check_module, check_node):
    """ExportError naming the module or node where io.loadModel would refuse the file.
    check_module(where, entry, tensors) and check_node(where, node) are each op's own
    checks (qwasm_ops.check_module / check_node: what the loader's builders refuse)."""
    shape = list(input_shape)
    placeholder = f"the example input (node '{nodes[0]['name']}')" if nodes else "the example input"
    if 0 in shape:
        # The loader would read it, but an empty example checks nothing: export() compares the traced graph
        # with the model on it, and io.loadModel plans each node's memory and work on the recorded shape.
        raise ExportError(f"{placeholder} has shape {shape}, with an empty dimension: export() checks the traced "
                          "graph against the model on the example and io.loadModel plans the model on its shape, "
                          "and an empty tensor tests neither; export with an example of at least one element along "
                          "every dimension (the loaded model still takes other batch sizes)")
    if len(shape) > _MAX_INPUT_RANK or not all(1 <= d <= _MAX_INPUT_SIZE for d in shape):
        raise ExportError(f"{placeholder} has shape {shape}: qwasm's model files record an input of at most "
                          f"{_MAX_INPUT_RANK} dimensions, each at most {_MAX_INPUT_SIZE}")
    for path, m in modules.items():
        _check_module_path(path)
        check_module(f"module '{path}'", m, tensors)
    for node in nodes:
        _check_node(node, check_node)
    for name in tensors:
        if _name_length(name) > MAX_NAME:
            raise ExportError(f"tensor {_quoted(name)} (a module's weight): its name is over {MAX_NAME} characters, "
                              "qwasm's limit for names in a model file; give the module a shorter name")


# -- the header's optional entries (web/src/model/description.mjs) ----------

# The file's metadata entries that are qwasm's (vocabulary.json "header"); every other entry is the user's.
HEADER_ENTRIES = ("format", "format_version", "graph", "preprocessing", "classes")
# The transforms the preprocessing entry may name, and each one's fields besides "transform" (vocabulary.json).
PREPROCESSING_TRANSFORMS = {"VideoClassification": ["crop_size", "resize_size", "mean", "std", "interpolation"],
                            "VolumeSegmentation": ["orientation", "spacing", "intensity"]}
_MAX_SIDE = 16384  # the loader's bounds (web/src/transforms/video-classification.mjs, format-readers.mjs)
_MAX_CLASS_NAME = 1000


def header_entries(metadata, preprocessing, classes, example_input):
    """The user's metadata plus the preprocessing and class names as JSON, checked
    as io.loadModel checks them (web/src/model/description.mjs), so a file this
    writes is a file qwasm loads."""
    entries = dict(metadata or {})
    for key, value in entries.items():
        if key in HEADER_ENTRIES:
            raise ExportError(f"metadata key '{key}' is the exporter's: pass preprocessing= or classes= instead"
                              if key in ("preprocessing", "classes") else f"metadata key '{key}' is the exporter's")
        if not isinstance(key, str) or not isinstance(value, str):
            raise ExportError(f"metadata entries must be strings, got {key!r}: {type(value).__name__}")
    if preprocessing is not None:
        entries["preprocessing"] = json.dumps(_preprocessing_entry(preprocessing, example_input), allow_nan=False)
    if classes is not None:
        entries["classes"] = json.dumps(classes)
    return entries


def class_names(classes):
    """classes as a list of names (read once: a generator is fine), or None."""
    if classes is None:
        return None
    if isinstance(classes, (str, bytes)):
        raise ExportError("classes must be a list of names, not one string")
    try:
        names = list(classes)
    except TypeError as e:
        raise ExportError(f"classes must be a list of names, got {type(classes).__name__}") from e
    if not names or not all(isinstance(n, str) and len(n) <= _MAX_CLASS_NAME for n in names):
        raise ExportError(f"classes must be a non-empty list of strings of at most {_MAX_CLASS_NAME} characters "
                          "(the output's class names)")
    return names


class SegmentationClassNames(list):
    """Class names of a segmentation's output [N, C, X, Y, Z]: one per channel (dim 1), not per last-dim entry."""


def check_class_count(classes, out):
    """One name per class: the last dimension of a classification output [N, classes], dimension 1 of a
    segmentation output [N, classes, D, H, W] (a per-voxel score per class, as torch.argmax(dim=1) reads it)."""
    if isinstance(classes, SegmentationClassNames):
        if out.dim() != 5 or len(classes) != out.shape[1]:
            raise ExportError(f"{len(classes)} class names for a segmentation output of shape {list(out.shape)}: "
                              "VolumeSegmentation's output is [N, C, X, Y, Z], one name per channel C")
        return
    axis = 1 if out.dim() >= 3 else -1
    if classes is not None and (out.dim() == 0 or len(classes) != out.shape[axis]):
        raise ExportError(f"{len(classes)} class names for an output of shape {list(out.shape)}: "
                          "give one name per output" + (" class (dimension 1)" if axis == 1 else ""))


def _sizes(value, what, lengths):
    """A list of 1..16384 integers of one of `lengths` (the loader's bounds)."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(values) not in lengths or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= _MAX_SIDE for v in values):
        raise ExportError(f"preprocessing {what} must be {' or '.join(map(str, lengths))} integers from 1 to "
                          f"{_MAX_SIDE}, got {value!r}")
    return values


def _channel_values(value, what, nonzero):
    """One value for all three RGB channels or one each, finite (and nonzero): torchvision's broadcasting."""
    try:
        values = [float(v) for v in value]
    except (TypeError, ValueError) as e:
        raise ExportError(f"preprocessing {what} must be a list of numbers, got {value!r}") from e
    if len(values) not in (1, 3) or not all(math.isfinite(v) and (v != 0 or not nonzero) for v in values):
        raise ExportError(f"preprocessing {what} must be 1 or 3 finite{', nonzero' if nonzero else ''} values "
                          f"(RGB), got {values}")
    return values


def is_volume_segmentation(p):
    """True for a VolumeSegmentation record (python/qwasm_volume.py RECORD): a dict whose transform names it."""
    return isinstance(p, dict) and p.get("transform") == "VolumeSegmentation"


def _volume_entry(p, example_input):
    """The VolumeSegmentation record, checked as web/src/transforms/volume-segmentation.mjs checks it."""
    from qwasm_volume import VolumeError, check_record
    try:
        entry = check_record(p)
    except VolumeError as e:
        raise ExportError(f"preprocessing (VolumeSegmentation): {e}") from e
    shape = list(example_input.shape)
    if len(shape) != 5 or shape[1] != 1:
        raise ExportError(f"preprocessing VolumeSegmentation makes [N, 1, X, Y, Z] (one intensity channel), "
                          f"but the example input is {shape}")
    return entry


def _preprocessing_entry(p, example_input):
    """torchvision's VideoClassification (or a dict of its fields), or a VolumeSegmentation record
    (python/qwasm_volume.py), as the file records it."""
    if is_volume_segmentation(p):
        return _volume_entry(p, example_input)
    fields = ("crop_size", "resize_size", "mean", "std")
    if isinstance(p, dict):
        unknown = set(p) - set(fields) - {"interpolation"}
        if unknown or not set(fields) <= set(p):
            raise ExportError(f"preprocessing takes exactly {', '.join(fields)} (and interpolation), "
                              f"got {sorted(p)}")
        get = p.get
    elif type(p).__name__ == "VideoClassification":
        get = lambda k, default=None: getattr(p, k, default)  # noqa: E731
    else:
        raise ExportError(f"preprocessing must be torchvision's VideoClassification (weights.transforms() of a "
                          f"video model) or a dict of {', '.join(fields)}, got {type(p).__name__}")
    interpolation = get("interpolation", "bilinear")
    interpolation = getattr(interpolation, "value", interpolation)
    if interpolation != "bilinear":
        raise ExportError(f"preprocessing interpolation must be bilinear (what qwasm implements), got {interpolation}")
    crop = _sizes(get("crop_size"), "crop_size", (1, 2))
    entry = {"transform": "VideoClassification", "crop_size": crop * 2 if len(crop) == 1 else crop,
             "resize_size": _sizes(get("resize_size"), "resize_size", (1, 2)),
             "mean": _channel_values(get("mean"), "mean", False), "std": _channel_values(get("std"), "std", True),
             "interpolation": "bilinear"}
    shape = list(example_input.shape)
    if len(shape) != 5 or shape[1] != 3 or entry["crop_size"] != shape[3:]:
        raise ExportError(f"preprocessing makes [N, 3, T, {', '.join(map(str, entry['crop_size']))}] (RGB frames "
                          f"cropped), but the example input is {shape} (N, C, T, H, W)")
    return entry


# -- the file -----------------------------------------------------------------

def save(w, modules, nodes, engine, example_input, path, metadata, *, check_module, check_node):
    """Checks the graph as io.loadModel would (check_loadable), then writes the file; returns the graph."""
    from safetensors.torch import save_file

    check_loadable(modules, nodes, w.tensors, example_input.shape, check_module=check_module, check_node=check_node)
    graph = {"format": FORMAT, "version": FORMAT_VERSION, "torch": torch.__version__, "engine": engine,
             "input_shape": list(example_input.shape), "modules": modules, "nodes": nodes}
    try:
        # JSON has no NaN or Infinity (JSON.parse refuses Python's NaN); the checks above name where one is.
        text = json.dumps(graph, allow_nan=False)
    except ValueError as e:
        raise ExportError(f"the graph holds a value JSON cannot represent: {e}") from e
    meta = {"format": FORMAT, "format_version": str(FORMAT_VERSION), "graph": text}
    meta.update(metadata or {})
    save_file(w.tensors, path, metadata=meta)
    _apply_umask(path)
    return graph


def _apply_umask(path):
    """The file's mode as the user's umask makes a new file (0644 under the usual
    022): safetensors' save_file writes 0600, which a web server running as
    another user answers with 403."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)
