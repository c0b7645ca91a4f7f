"""The Helm SDK (``helm-python-sdk``: Helm's Go code behind ctypes) run in a child process, so that a
template that loops for hours, eats all memory or crashes the Go runtime ends one bounded child,
never hooklint (:mod:`hooklint.sources.bounded` runs it; :mod:`hooklint.sources.render.helm` says what is
rendered and how).

Started as ``python -I <this file>``: it imports nothing from the hooklint package (its imports would
cost more than the render of a small chart; ``strvals.py`` beside it, which imports nothing of
hooklint, is loaded by path) and reads one JSON request on stdin:

- ``{"op": "version", "path": <folder holding helm_python>}`` answers ``{"sdk": "0.2.2", "helm":
  "v4.0.0"}``;
- ``{"op": "render", "path": ..., "chart": <folder>, "release": <name>, "values": [<files>],
  "set": {...}, "set_string": {...}, "options": {<helm_render options>}, "crds": <bool>}`` answers
  ``{"manifests": {<template name>: <text>}, "crds": [{"filename": ..., "data": ...}]}``: Helm's
  ``ReadValuesFile`` and ``mergeMaps`` over the value files, then each ``--set``, then
  ``--set-string``, then ``--set-file`` flag (``"set_file": [[name, path], ...]``) parsed into
  those values (``strvals.ParseInto``, ported in ``strvals.py``); ``engine.Render`` after ``ProcessDependencies`` (``helm_render``); the CRDs of
  the enabled charts.

Any failure answers ``{"error": <Helm's message>}``; a missing or unloadable SDK ``{"unavailable":
<why>}``. The answer is one JSON document on stdout; Go's log lines go to stderr, which hooklint
drops.
"""

import json
import sys


def _merge_maps(base, update):
    """``pkg/cli/values/options.go`` ``mergeMaps``: maps merge recursively, anything else replaces."""
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge_maps(out[key], value)
        else:
            out[key] = value
    return out


def _strvals():
    """hooklint's port of Helm's ``--set`` parser (``strvals.py`` beside this file, which imports
    nothing of hooklint): Helm parses each flag into the values (``MergeValues``:
    ``strvals.ParseInto``), which the SDK does not offer (its ``parse_set_string`` parses into a new
    map, and merging that map replaces a list a value file wrote, where ``--set a[1].b=x`` changes
    one item of it)."""
    import importlib.util
    import os

    name = "hooklint_helm_strvals"
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                     "strvals.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _read_file(path):
    """``--set-file``'s reader (``pkg/cli/values/options.go`` ``readFile``): the file's text."""
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace")


def _render(helm, native, request):
    helm.validate_release_name(request["release"])
    values = {}
    for path in request["values"]:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
        try:
            values = _merge_maps(values, helm.values_from_yaml(text))
        except helm.HelmError as exc:
            raise helm.HelmError(f"failed to parse {path}: {exc}") from None
    strvals = _strvals()
    steps = [("--set", request["set"].items(), lambda text: strvals.parse(text, False, into=values)),
             ("--set-string", request["set_string"].items(), lambda text: strvals.parse(text, True, into=values)),
             ("--set-file", request.get("set_file", []), lambda text: strvals.parse_file(text, values, _read_file))]
    for flag, pairs, apply in steps:
        for name, value in pairs:  # each flag parsed into the values, in order (strvals.ParseInto)
            try:
                apply(f"{name}={value}")
            except (strvals.StrvalsError, OSError) as exc:
                raise helm.HelmError(f"failed parsing {flag} data: {exc}") from None
    with helm.Chart.load(request["chart"]) as loaded:
        # helm_render takes kube_version and api_versions (helm-c-sdk 0.2.2 RenderOptions), which
        # Chart.render does not pass on. Rendering processes dependencies (conditions, tags,
        # aliases) in place, so the CRDs read next are those of the enabled charts, as in Helm.
        manifests = json.loads(native.call_string(
            "helm_render", loaded._raw(), json.dumps(values), json.dumps(request["options"])
        ))  # fmt: skip
        crds = [{"filename": c["filename"], "data": c["data"]} for c in loaded.crds] if request["crds"] else []
    return {"manifests": manifests, "crds": crds}


def main():
    request = json.load(sys.stdin)
    if request.get("path"):
        sys.path.insert(0, request["path"])
    try:
        import helm_python as helm
        from helm_python import _native
    except Exception as exc:  # noqa: BLE001 - ImportError, or HelmLibraryError when no library fits
        answer = {"unavailable": f"{type(exc).__name__}: {exc}"}
    else:
        if request["op"] == "version":
            answer = {"sdk": helm.__version__, "helm": helm.helm_sdk_version()}
        else:
            try:
                answer = _render(helm, _native, request)
            except helm.HelmError as exc:
                answer = {"error": str(exc)}
    json.dump(answer, sys.stdout)
    sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    except MemoryError:
        sys.stderr.write("MemoryError\n")
        sys.exit(3)
