from auditor.probe.normalize import normalise


def test_cpp_source_locations_of_warnings_are_dropped() -> None:
    one = ("UserWarning: floor_divide is deprecated (Triggered internally at "
           "../aten/src/ATen/native/BinaryOps.cpp:467.)")
    other = ("UserWarning: floor_divide is deprecated (Triggered internally at "
             "/pytorch/aten/src/ATen/native/BinaryOps.cpp:601.)")
    assert normalise(one) == normalise(other) == "UserWarning: floor_divide is deprecated"


def test_addresses_paths_and_line_numbers_are_evened_out() -> None:
    a = "<torch.storage.TypedStorage object at 0x7f3a2c1b9e80> /tmp/x/lib/python3.10/site-packages/torch/nn/modules/module.py:1130"
    b = "<torch.storage.TypedStorage object at 0x7fe0019a0b20> /home/u/.cache/env/lib/python3.11/site-packages/torch/nn/modules/module.py:1501"
    assert normalise(a) == normalise(b)
    assert "0x…" in normalise(a) and "<site-packages>/torch/nn/modules/module.py:N" in normalise(a)


def test_environment_roots_and_trailing_spaces() -> None:
    assert normalise("loaded from /cache/envs/torch-2.13.0-py3.11/x  \n", ["/cache/envs/torch-2.13.0-py3.11"]) == (
        "loaded from <env>/x"
    )


def test_plain_facts_are_left_alone() -> None:
    assert normalise("tensor(44, dtype=torch.int8)") == "tensor(44, dtype=torch.int8)"
    assert normalise("-1 -1") == "-1 -1"
    assert normalise("0x10") == "0x10"  # a short hex literal is a value, not an address
