"""The check behind the entry beside this file (change.toml):
the norm layers of the detection builders' backbones when no backbone weights are loaded
(0.12: pretrained_backbone=False; 0.13: weights_backbone=None, and the old keyword, deprecated and
mapped to it). Nothing is downloaded. Run with torchvision 0.12.0 (torch 1.11.0) and 0.13.0
(torch 1.12.0), in environments made as benchmarks/torchvision_builder_defaults.py says.
"""
import warnings
from collections import Counter

import torchvision
from torchvision.models import detection as d

warnings.simplefilter("ignore")
new = tuple(int(x) for x in torchvision.__version__.split("+")[0].split(".")[:2]) >= (0, 13)
builders = [d.fasterrcnn_resnet50_fpn, d.fasterrcnn_mobilenet_v3_large_fpn, d.fasterrcnn_mobilenet_v3_large_320_fpn,
            d.fcos_resnet50_fpn, d.keypointrcnn_resnet50_fpn, d.maskrcnn_resnet50_fpn, d.retinanet_resnet50_fpn,
            d.ssd300_vgg16, d.ssdlite320_mobilenet_v3_large]
for b in builders:
    calls = [("pretrained_backbone=False", {"pretrained_backbone": False})]
    if new:
        calls.append(("weights_backbone=None", {"weights_backbone": None}))
    for label, kw in calls:
        m = b(**kw)
        norms = Counter(type(x).__name__ for x in m.backbone.modules() if "Norm" in type(x).__name__)
        print(b.__name__, label, sorted(norms.items()))
print("versions", torchvision.__version__)
