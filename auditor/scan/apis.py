"""Facts about the torch and numpy APIs that the resolver types values with, as tables.

Adding a torch function whose result is an integer tensor, a method that gives a bool tensor,
or a class whose instances are optimizers is one entry here; `names.Resolver` reads the
tables and holds no list of API names of its own.
"""

from __future__ import annotations

from auditor.scan.tags import BOOL_TENSOR, FLOAT_TENSOR, INT_TENSOR, TENSOR, Tag

# Modules whose lowercase functions give tensors (unless listed in NOT_TENSOR_FUNCTIONS).
TENSOR_FUNCTION_MODULES = frozenset(
    {"torch", "torch.linalg", "torch.fft", "torch.special", "torch.nn.functional", "torch.sparse"}
)
NOT_TENSOR_FUNCTIONS = frozenset(
    [
        "device",
        "dtype",
        "Size",
        "Generator",
        "no_grad",
        "enable_grad",
        "set_grad_enabled",
        "inference_mode",
        "manual_seed",
        "seed",
        "is_tensor",
        "is_floating_point",
        "is_complex",
        "is_nonzero",
        "numel",
        "get_default_dtype",
        "set_default_dtype",
        "set_default_tensor_type",
        "load",
        "save",
        "compile",
        "is_grad_enabled",
        "use_deterministic_algorithms",
        "set_printoptions",
        "set_num_threads",
        "get_num_threads",
        "finfo",
        "iinfo",
        "broadcast_shapes",
        "promote_types",
        "result_type",
        "can_cast",
        "typename",
        "autocast",
        "is_storage",
        "get_rng_state",
        "set_rng_state",
    ]
)
# Calling these classes (or annotating with them) gives a tensor of this family.
TENSOR_CLASSES: dict[str, Tag] = {
    "torch.Tensor": TENSOR,
    "torch.nn.Parameter": FLOAT_TENSOR,
    "torch.nn.parameter.Parameter": FLOAT_TENSOR,
    "torch.FloatTensor": FLOAT_TENSOR,
    "torch.DoubleTensor": FLOAT_TENSOR,
    "torch.HalfTensor": FLOAT_TENSOR,
    "torch.LongTensor": INT_TENSOR,
    "torch.IntTensor": INT_TENSOR,
    "torch.ShortTensor": INT_TENSOR,
    "torch.ByteTensor": INT_TENSOR,
    "torch.CharTensor": INT_TENSOR,
    "torch.BoolTensor": BOOL_TENSOR,
}
# Annotations naming a numpy array (`np.ndarray`, `npt.NDArray[np.float32]`).
ARRAY_CLASSES = frozenset({"numpy.ndarray", "numpy.typing.NDArray", "numpy.typing.ArrayLike"})
# Classes whose instances are neither tensors nor modules, by the prefix of their qualified name,
# and the class whose methods they have (what decides which method matchers apply).
OBJECT_CLASSES: tuple[tuple[str, str], ...] = (
    ("torch.optim.lr_scheduler.", "torch.optim.lr_scheduler.LRScheduler"),
    ("torch.optim.", "torch.optim.Optimizer"),
)

# Packages whose classes' instances carry their class (for the matchers keyed by its methods).
INSTANCE_ROOTS = ("torch.", "torchvision.", "torchaudio.")
# torch classes whose call gives something other than an instance of themselves.
NOT_INSTANCE_CLASSES: dict[str, Tag] = {
    "torch.autograd.Variable": TENSOR,
    "torch.autograd.variable.Variable": TENSOR,
}

# The classes whose instances the resolver can tell: a method call on one of them is matched
# against the matchers about that class (see `tags.owner_of`). An instance of any other torch
# class constructed or annotated in view carries its class too, for the matchers keyed by that
# class's own methods (`torch.cuda.Stream.priority`).
# The classes whose attributes a crossed removal may take away, read by `hasattr(t, "names")` (`guards`).
PROBED_CLASSES = frozenset({"torch.Tensor", "numpy.ndarray"})
TYPED_CLASSES = frozenset(
    {"torch.Tensor", "torch.nn.Module", "numpy.ndarray", *(owner for _, owner in OBJECT_CLASSES)}
)

# What `torch.tensor(value, dtype=...)` accepts from 1.13 (Python 3.10+): unsigned dtypes still
# wrap negative values (torch.tensor(-1, dtype=torch.uint8) is 255, observed on 2.13.0).
_ANY_NEGATIVE = -(2**63)
INT_DTYPES = {
    "int8": (-(2**7), 2**7 - 1),
    "uint8": (_ANY_NEGATIVE, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "short": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "long": (-(2**63), 2**63 - 1),
    "uint16": (_ANY_NEGATIVE, 2**16 - 1),
    "uint32": (_ANY_NEGATIVE, 2**32 - 1),
    "uint64": (_ANY_NEGATIVE, 2**64 - 1),
}
FLOAT_DTYPES = frozenset({"float", "float32", "float64", "double", "float16", "half", "bfloat16"})

_INT_FACTORIES = [
    "randint",
    "randint_like",
    "argmax",
    "argmin",
    "argsort",
    "nonzero",
    "bucketize",
    "searchsorted",
    "randperm",
    "multinomial",
    "tril_indices",
    "triu_indices",
]
_FLOAT_FACTORIES = [
    "rand",
    "randn",
    "rand_like",
    "randn_like",
    "normal",
    "linspace",
    "logspace",
    "zeros",
    "ones",
    "empty",
    "eye",
]
# Results that are floating point whatever the input (or that raise on integer input).
FLOAT_RESULTS = frozenset(
    [
        "mean",
        "std",
        "var",
        "softmax",
        "log_softmax",
        "sigmoid",
        "exp",
        "expm1",
        "log",
        "log1p",
        "log2",
        "log10",
        "sqrt",
        "rsqrt",
        "tanh",
        "norm",
        "erf",
        "erfinv",
        "sin",
        "cos",
        "tan",
        "atan",
        "asin",
        "acos",
        "atan2",
        "logsumexp",
        "reciprocal",
        "cdist",
        "cosine_similarity",
        "layer_norm",
        "batch_norm",
        "group_norm",
        "instance_norm",
        "normalize",
        "gelu",
        "silu",
        "dropout",
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "interpolate",
        "softplus",
        "logit",
        "lerp",
        "cumprod_float",
        "rand_like",
        "randn_like",
    ]
)
BOOL_RESULTS = frozenset(
    [
        "bool",
        "isnan",
        "isinf",
        "isfinite",
        "isneginf",
        "isposinf",
        "isreal",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "greater",
        "less",
        "equal",
        "not_equal",
        "isclose",
        "isin",
        "signbit",
    ]
)
# torch functions (by name, in TENSOR_FUNCTION_MODULES) whose result has a fixed family.
FUNCTION_RESULTS: dict[str, Tag] = {
    **{name: INT_TENSOR for name in _INT_FACTORIES},
    **{name: FLOAT_TENSOR for name in [*_FLOAT_FACTORIES, *FLOAT_RESULTS]},
    **{name: BOOL_TENSOR for name in BOOL_RESULTS},
}
# torch functions whose result keeps the family of their first argument, except these.
NOT_SAME_FAMILY = frozenset(["div", "true_divide", "mean", "std", "var"])
LITERAL_CONSTRUCTORS = frozenset(["tensor", "as_tensor", "arange"])  # family from the data given

ARITHMETIC_METHODS = frozenset(
    ["add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "true_divide", "pow"]
)
COUNTING_METHODS = frozenset(
    ["sum", "cumsum", "prod", "count_nonzero"]
)  # on a bool tensor: integers
DTYPE_METHODS = frozenset(
    ["to", "type", "type_as", "new_tensor", "new_zeros", "new_ones", "new_full", "new_empty"]
)
NOT_TENSOR_METHODS = frozenset(
    [
        "item",
        "tolist",
        "size",
        "dim",
        "numel",
        "numpy",
        "element_size",
        "is_contiguous",
        "data_ptr",
        "stride",
        "storage",
        "get_device",
        "nelement",
        "is_floating_point",
        "ndimension",
        "equal",
        "backward",
        "register_hook",
        "untyped_storage",
        "is_complex",
        "__len__",
        "__repr__",
        "__str__",
    ]
)
# Tensor methods whose result has a fixed family; a method not listed keeps the receiver's.
METHOD_RESULTS: dict[str, Tag] = {
    **{
        name: INT_TENSOR
        for name in [
            "long",
            "int",
            "short",
            "byte",
            "char",
            "argmax",
            "argmin",
            "argsort",
            "nonzero",
        ]
    },
    **{name: BOOL_TENSOR for name in BOOL_RESULTS},
    **{name: FLOAT_TENSOR for name in ["float", "double", "half", "bfloat16", *FLOAT_RESULTS]},
}
SAME_TENSOR_ATTRIBUTES = frozenset(["T", "mT", "H", "mH", "data", "grad"])
INT_BUILTINS = frozenset({"len", "int", "round", "ord", "hash", "id"})

# numpy (and pandas) functions give arrays, except these (scalars, dtypes, modules of helpers).
ARRAY_MODULES = ("numpy.", "pandas.")
NOT_ARRAY_FUNCTIONS = frozenset(
    [
        "dtype",
        "finfo",
        "iinfo",
        "seterr",
        "errstate",
        "set_printoptions",
        "printoptions",
        "isscalar",
        "ndim",
        "shape",
        "size",
        "result_type",
        "can_cast",
        "promote_types",
    ]
)
NOT_ARRAY_ATTRIBUTES = frozenset(
    ["shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides", "flags"]
)

# The same function under the module that defines it, where torch re-exports it under another
# name that the knowledge uses: `torch.serialization.load` is `torch.load`. A matcher on the public
# name matches these spellings too.
DEFINED_AS: dict[str, tuple[str, ...]] = {
    "torch.load": ("torch.serialization.load",),
    "torch.save": ("torch.serialization.save",),
    "torch.onnx.export": ("torch.onnx.utils.export",),
    "torch.utils.data.DataLoader": ("torch.utils.data.dataloader.DataLoader",),
    "torch.nn.parallel.DistributedDataParallel": (
        "torch.nn.parallel.distributed.DistributedDataParallel",
    ),
    "torch.cuda.amp.GradScaler": ("torch.cuda.amp.grad_scaler.GradScaler",),
    "torch.cuda.amp.autocast": ("torch.cuda.amp.autocast_mode.autocast",),
    "torch.stft": ("torch.functional.stft",),
    "torch.norm": ("torch.functional.norm",),
    "torch.meshgrid": ("torch.functional.meshgrid",),
    "torch.lu": ("torch.functional.lu",),
    "torch.chain_matmul": ("torch.functional.chain_matmul",),
}
