"""A user's JAX policy as a tournament bot (`kind = "jax"`), played inside the chunk's
jitted, vmapped loop beside the built-in bots, on the worker's device.

`target = "package.module:make_policy"`: `make_policy(env)` (the game's `kanjax.Env`) returns
a jittable policy `(key, observation, legal_mask) -> action`, or, with `params = "path"`,
`(params, key, observation, legal_mask) -> action`; the action is an integer scalar. The
observation is one game's (`env.observation_spec()`: a flat integer array), the mask
bool[num_actions], the key a `jax.random.PRNGKey`; the policy is vmapped over the games of a
chunk. An illegal action forfeits the game as any bot's does.

Parameters are a numpy `.npz` file (`save_params` / `load_params`): a nested dict of arrays
stored flat, one array a '/'-joined path (`{"dense1": {"w": ...}}` -> `dense1/w`). The format
needs nothing beyond numpy, loads without pickle (so a checkpoint cannot run code), and any
framework writes it (`np.savez` from PyTorch or TensorFlow weights; flax's `params` dict as it
is). A worker loads it once and passes it to the compiled chunk as an argument: one compile
serves every checkpoint of the same shapes.
"""

from __future__ import annotations

import importlib
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kanjax.api import Env
from kanjax.rollout import Policy

Params = Mapping[str, Any]  # a nested dict of arrays
SEP = "/"


def save_params(path: str | Path, params: Params) -> None:
    """Write a nested dict of arrays as a `.npz` file (keys joined with '/')."""
    flat: dict[str, np.ndarray] = {}

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                if SEP in k:
                    raise ValueError(f"a parameter name may not hold {SEP!r}: {k!r}")
                walk(f"{prefix}{k}{SEP}", v)
        else:
            flat[prefix[:-1]] = np.asarray(node)

    walk("", params)
    with open(path, "wb") as f:  # np.savez would add ".npz" to any other name
        np.savez(f, **flat)


def load_params(path: str | Path) -> dict[str, Any]:
    """The nested dict of numpy arrays of a `save_params` file (no pickle)."""
    tree: dict[str, Any] = {}
    with np.load(path, allow_pickle=False) as data:
        for name in data.files:
            *parents, leaf = name.split(SEP)
            node = tree
            for p in parents:
                node = node.setdefault(p, {})
            node[leaf] = data[name]
    return tree


def make_policy(target: str, env: Env) -> Callable:
    """The policy `target` ("module:make_policy") makes for `env`."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)(env)


def bind(policy: Callable, params: Params | None) -> Policy:
    """`policy` as a `(key, observation, legal_mask)` policy: with `params` given first."""
    if params is None:
        return policy
    return lambda key, observation, legal_mask: policy(params, key, observation, legal_mask)


def policy_problem(target: str, params_path: str, env: Env) -> tuple[str, str]:
    """Why a jax bot cannot play `env` ("" if it can) and the config key to blame (target or
    params): its target does not import or build, its parameters do not load, or the policy
    does not trace to one integer action a game (vmapped over two games)."""
    module, colon, name = target.partition(":")
    if not colon or not module or not name:
        return f"want target = \"package.module:make_policy\", got {target!r}", "target"
    try:
        factory = getattr(importlib.import_module(module), name)
    except Exception as err:  # noqa: BLE001 - any import failure is a config error
        return f"cannot import {target!r}: {_brief(err)}", "target"
    params = None
    if params_path:
        try:
            params = load_params(params_path)
        except Exception as err:  # noqa: BLE001 - an unreadable checkpoint
            return f"cannot load parameters {params_path!r}: {_brief(err)}", "params"
    try:
        policy = bind(factory(env), params)
        spec = env.observation_spec()
        out = jax.eval_shape(jax.vmap(policy), jax.ShapeDtypeStruct((2, 2), jnp.uint32),
                             jax.ShapeDtypeStruct((2, *spec.shape), spec.dtype),
                             jax.ShapeDtypeStruct((2, env.num_actions), jnp.bool_))
    except Exception as err:  # noqa: BLE001 - a policy that does not trace
        return f"{target} does not trace: {_brief(err)}", "target"
    if not (isinstance(out, jax.ShapeDtypeStruct) and out.shape == (2,)
            and jnp.issubdtype(out.dtype, jnp.integer)):
        return (f"{target}'s policy must return one integer action a game, got "
                f"{jax.tree.map(lambda x: f'{x.dtype}{list(x.shape[1:])}', out)}"), "target"
    return "", ""


def _brief(err: BaseException) -> str:
    """`err`'s type, the first line of its message and where the user's code raised it."""
    lines = str(err).splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else ''}{_raised_at(err)}"


def _raised_at(err: BaseException) -> str:
    """' (at FILE:LINE)': where the user's code failed (a syntax error's line, else the
    innermost frame of `err`'s traceback outside the import machinery, jax and numpy), or
    ''."""
    if isinstance(err, SyntaxError) and err.filename:
        return f" (at {err.filename}:{err.lineno})"
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if not f.filename.startswith("<frozen") and not any(
                  f"/{lib}/" in f.filename for lib in ("jax", "jaxlib", "numpy"))]
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
