from fake_github import actions_env, github_api, make_repo, outputs_of  # noqa: F401  (fixtures)
