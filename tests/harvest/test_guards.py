import pytest

from auditor.harvest.generate import Open, guard_conditions
from auditor.harvest.guards import simplify
from auditor.harvest.model import Param


@pytest.mark.parametrize(("guard", "plain"), [
    ("False and None is not None", False),
    ("True and optim_input is not None", "optim_input is not None"),
    ("not (check_sparse_nnz is None)", "check_sparse_nnz is not None"),
    ("not isinstance(None, ProcessGroup)", True),
    ("not reduction == 'none' and (not reduction == 'mean') and (reduction == 'elementwise_mean')",
     "reduction == 'elementwise_mean'"),
    ("(beta == 0.0) and (not reduction == 'none' and (reduction == 'elementwise_mean'))",
     "beta == 0.0 and reduction == 'elementwise_mean'"),
    ("dim is None or True", True),
    ("x.dim() > 2", "x.dim() > 2"),
])
def test_simplify(guard: str, plain: object) -> None:
    assert simplify(guard) == plain


def test_a_conjunction_is_one_condition_and_two_required_keywords_stay_open() -> None:
    params = (Param("input", "positional", None), Param("beta", "positional", "1.0"),
              Param("reduction", "positional", "'mean'"), Param("a", "keyword-only", "None"),
              Param("b", "keyword-only", "None"))
    both = guard_conditions("beta == 0.0 and reduction == 'elementwise_mean'", params, False)
    assert not isinstance(both, Open)
    assert both[0].keyword_values == (("beta", (0.0,)), ("reduction", ("elementwise_mean",)))
    assert isinstance(guard_conditions("a is not None and b is not None", params, False), Open)
