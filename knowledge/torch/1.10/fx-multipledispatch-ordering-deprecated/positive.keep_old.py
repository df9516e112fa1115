from torch.fx.experimental.unification.multipledispatch import halt_ordering, restart_ordering

None  # expect
None  # expect
