from torch.distributed.device_mesh import init_device_mesh


def build_meshes(world):
    mesh = init_device_mesh("cuda", (world // 4, 2, 2), mesh_dim_names=("dp", "cp", "tp"))
    dp_cp = mesh["dp", "cp"].flatten()
    return dp_cp, mesh["tp"]
