"""The check behind knowledge/torchvision/harvest/waivers.toml: torchvision 0.13's detection and
segmentation builders default num_classes (and num_keypoints) to None; called with them left out
and no backbone weights (nothing is downloaded), each must build the same heads as on 0.12. Run
with each version and compare (the first column's digest of all shapes differs only by the
backbone's norm layer, num_batches_tracked; the heads must be equal):

    uv venv -p 3.10 /tmp/tv12 && uv pip install -p /tmp/tv12/bin/python torch==1.11.0 torchvision==0.12.0 'numpy<2'
    uv venv -p 3.10 /tmp/tv13 && uv pip install -p /tmp/tv13/bin/python torch==1.12.0 torchvision==0.13.0 'numpy<2'
    diff <(/tmp/tv12/bin/python benchmarks/torchvision_builder_defaults.py | cut -d' ' -f1,3-) \
         <(/tmp/tv13/bin/python benchmarks/torchvision_builder_defaults.py | cut -d' ' -f1,3-)
"""
import hashlib
import warnings

import torch
import torchvision
from torchvision.models import detection as d
from torchvision.models import segmentation as s

warnings.simplefilter("ignore")
new = tuple(int(x) for x in torchvision.__version__.split("+")[0].split(".")[:2]) >= (0, 13)
off = {"weights_backbone": None} if new else {"pretrained_backbone": False}
def heads(m):
    out = {}
    for name, mod in m.named_modules():
        if name.endswith(("cls_score", "kps_score_lowres", "mask_fcn_logits", "cls_logits", "low_classifier", "high_classifier")) or name in ("classifier.4", "aux_classifier.4"):
            w = getattr(mod, "weight", None)
            out[name] = tuple(w.shape) if w is not None else None
        if hasattr(mod, "num_classes") and isinstance(mod.num_classes, int):
            out[name + ".num_classes"] = mod.num_classes
    return out
def shapes(m):
    return hashlib.sha256(repr(sorted((k, tuple(v.shape)) for k, v in m.state_dict().items())).encode()).hexdigest()[:12]
builders = [d.fasterrcnn_resnet50_fpn, d.fasterrcnn_mobilenet_v3_large_fpn, d.fasterrcnn_mobilenet_v3_large_320_fpn,
            d.fcos_resnet50_fpn, d.keypointrcnn_resnet50_fpn, d.maskrcnn_resnet50_fpn, d.retinanet_resnet50_fpn,
            d.ssd300_vgg16, d.ssdlite320_mobilenet_v3_large,
            s.deeplabv3_resnet50, s.deeplabv3_resnet101, s.deeplabv3_mobilenet_v3_large, s.fcn_resnet50, s.fcn_resnet101,
            s.lraspp_mobilenet_v3_large]
torch.manual_seed(0)
for b in builders:
    m = b(**off)
    print(b.__name__, shapes(m), sorted(heads(m).items()))
print("versions", torch.__version__, torchvision.__version__)
for b in (d.ssd300_vgg16, d.ssdlite320_mobilenet_v3_large):
    print(b.__name__, "num_columns", b(**off).head.classification_head.num_columns)
