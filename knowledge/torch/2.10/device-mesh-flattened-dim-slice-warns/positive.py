from torch.distributed.device_mesh import init_device_mesh


def build_meshes(world):
    mesh = init_device_mesh("cuda", (world // 4, 2, 2), mesh_dim_names=("dp", "cp", "tp"))
    mesh["dp", "cp"]._flatten("dp_cp")  # expect
    return mesh["dp_cp"], mesh["tp"]
