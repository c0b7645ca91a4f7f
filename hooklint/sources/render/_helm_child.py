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
  the enabled charts. The SDK takes the values as JSON, which Go reads as float64: the integers
  ``--set`` typed int64 (``strvals.typedVal``) are set back by a template of the chart's copy that
  runs first (:func:`_typing_template`; ``"token"`` names it), so the templates see Helm's types.

Any failure answers ``{"error": <Helm's message>}``; a missing or unloadable SDK ``{"unavailable":
<why>}``. The answer is one JSON document on stdout; Go's log lines go to stderr, which hooklint
drops. An exception of Python code (a fault of hooklint's, not Helm's error) ends the child with
status 4 and one last stderr line, :data:`FAULT` and where it was raised (never its text).
"""

import json
import os
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


def _floats(value):
    """``value`` (a value file as JSON gave it) with every number a float: Helm reads value files
    through ``sigs.k8s.io/yaml`` (YAML to JSON, then ``encoding/json``), so each number of them is a
    float64 in the templates (``kindOf`` says ``float64``); only ``--set`` makes int64s."""
    if isinstance(value, dict):
        return {key: _floats(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_floats(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _int_leaves(value, path=()):
    """The ``(path, number)`` of every int (not bool) in ``value``: what ``--set`` typed as int64
    (``strvals.typedVal``; the value files' numbers are floats, :func:`_floats`)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _int_leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _int_leaves(item, path + (index,))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path, value


def _literal(value):
    """``value`` (JSON-like) as a Go template expression that builds it with Helm's types: an int
    an int64 (Sprig ``int64``), a float a float64, maps and lists Sprig ``dict``/``list``."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"(int64 {value})"
    if isinstance(value, float):
        return f'(float64 "{value!r}")'
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "(dict " + " ".join(f"{json.dumps(k, ensure_ascii=False)} {_literal(v)}" for k, v in value.items()) + ")"
    return "(list " + " ".join(_literal(v) for v in value) + ")"


def _setter(values, leaves):
    """Go template text that gives each of ``leaves`` (``(path, number)`` under the map ``$h`` starts
    as) its int64 type in place: a map entry by Sprig ``set``, a list holding one rebuilt whole
    (:func:`_literal`) and set in the map that holds it. Each step is guarded (a map holding the
    key, a list long enough; the value a float64 equal to it, a list of the same length), so it
    changes nothing a subchart's globals hold otherwise."""
    groups = {}
    for path, number in leaves:
        at = max(i for i, step in enumerate(path) if isinstance(step, str))
        groups.setdefault((path[:at], path[at]), []).append((path[at + 1:], number))
    out = []
    for (holder, key), items in groups.items():
        out.append("{{- $h := .Values }}{{- $ok := true }}")
        for step in holder:
            if isinstance(step, str):
                name = json.dumps(step, ensure_ascii=False)
                out.append(f'{{{{- if and $ok (kindIs "map" $h) (hasKey $h {name}) }}}}{{{{- $h = index $h {name} }}}}'
                           "{{- else }}{{- $ok = false }}{{- end }}")
            else:
                out.append(f'{{{{- if and $ok (kindIs "slice" $h) (lt {step} (len $h)) }}}}{{{{- $h = index $h {step} }}}}'
                           "{{- else }}{{- $ok = false }}{{- end }}")
        name = json.dumps(key, ensure_ascii=False)
        out.append(f'{{{{- if and $ok (kindIs "map" $h) (hasKey $h {name}) }}}}{{{{- $c := index $h {name} }}}}')
        if items == [((), items[0][1])]:
            number = items[0][1]
            out.append(f'{{{{- if and (kindIs "float64" $c) (eq $c (float64 {number})) }}}}'
                       f"{{{{- $_ := set $h {name} (int64 {number}) }}}}{{{{- end }}}}")
        else:
            whole = values
            for step in holder + (key,):
                whole = whole[step]
            out.append(f'{{{{- if and (kindIs "slice" $c) (eq (len $c) {len(whole)}) }}}}'
                       f"{{{{- $_ := set $h {name} {_literal(whole)} }}}}{{{{- end }}}}")
        out.append("{{- end }}\n")
    return "".join(out)


def _typing_template(values, token):
    """A template that gives the ``--set`` integers of ``values`` Helm's int64 type (Helm's
    ``MergeValues`` hands templates the values ``strvals`` typed; the SDK takes values as JSON,
    whose numbers Go reads as float64). It sets them in the chart's values and in each subchart's
    copy of ``global`` (helm pkg/chart/common/util/coalesce.go ``coalesceGlobals`` copies the
    parent's globals, which win), before any other template runs: Helm's engine shares the values
    maps between templates and executes the deepest template path first (pkg/engine/engine.go
    ``sortTemplates``, ``recAllTpls``). None when no value is an int."""
    leaves = list(_int_leaves(values))
    if not leaves:
        return None
    globals_ = [(path, number) for path, number in leaves if path[0] == "global"]
    name = f"hooklint-int64-{token}"
    text = _setter(values, leaves)
    if globals_:
        text += (f'{{{{- define "{name}" }}}}{_setter(values, globals_)}'
                 f'{{{{- range $_, $s := .Subcharts }}}}{{{{- $_ := include "{name}" $s }}}}{{{{- end }}}}{{{{- end }}}}'
                 f'{{{{- range $_, $s := .Subcharts }}}}{{{{- $_ := include "{name}" $s }}}}{{{{- end }}}}\n')
    return text


def _archive_depth(data, base, nesting=0):
    """The most ``/`` in the name Helm gives a file of the packaged chart ``data`` (gzip'd tar)
    whose files' names start after ``base`` slashes (a packaged subchart's own archives too)."""
    import io
    import tarfile

    deepest = base
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive:
                slashes = member.name.strip("/").count("/")
                deepest = max(deepest, base + slashes)
                if member.isfile() and member.name.endswith(".tgz") and nesting < 8:
                    handle = archive.extractfile(member)
                    if handle is not None:
                        deepest = max(deepest, _archive_depth(handle.read(), base + slashes, nesting + 1))
    except (OSError, tarfile.TarError, EOFError):
        pass
    return deepest


def _walk(top):
    """``os.walk(top)`` (links not followed, errors ignored) without recursion: Python 3.11's
    recurses once per level, and a chart's templates nested 1,000 folders deep raised RecursionError."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        dirs, names = [], []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            (dirs if is_dir else names).append(entry.name)
        yield folder, dirs, names
        stack.extend(os.path.join(folder, name) for name in reversed(dirs))


def _deepest(chart):
    """The most ``/`` in the name Helm's engine gives a template of the chart in folder ``chart``
    (``<name>/templates/x.yaml``; ``<name>/charts/<sub>/templates/...`` for a subchart, unpacked
    or packaged): chart names and aliases hold no ``/`` (helm pkg/chart/v2 metadata.go ``Validate``)."""
    deepest = 2
    for folder, _, names in _walk(chart):
        inside = os.path.relpath(folder, chart)
        parts = [] if inside == "." else inside.split(os.sep)
        for name in names:
            deepest = max(deepest, len(parts) + 1)
            if name.endswith(".tgz"):
                with open(os.path.join(folder, name), "rb") as handle:
                    deepest = max(deepest, _archive_depth(handle.read(), len(parts) + 1))
    return deepest


#: What Go's ``strings.TrimSpace`` trims (``unicode.IsSpace``: Latin-1's spaces and category Z).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000"


class SeparatorError(ValueError):
    """apimachinery's ``YAMLSyntaxError`` for a ``---`` line followed by more than a comment."""


def _documents(text):
    """The documents of a value file as Helm 4's ``loader.LoadValues`` reads them (helm
    pkg/chart/v2/loader/load.go, v4.2.3): apimachinery's ``YAMLReader.Read`` (pkg/util/yaml/decoder.go,
    v0.36.1) reads lines (``bufio.ReadLine``: ``\n`` or ``\r\n`` ends one, each written back with
    ``\n``), and a line starting ``---`` ends a non-empty document (an empty one keeps the line);
    what follows the ``---``, trimmed, must be empty or a comment (else SeparatorError)."""
    lines = text.split("\n")
    last = lines.pop()  # after the last line break: a line without one, or nothing
    documents, buffer = [], []
    for line in [line[:-1] if line.endswith("\r") else line for line in lines] + ([last] if last else []):
        if line.startswith("---"):
            trimmed = line[3:].strip(_GO_SPACE)
            if trimmed and trimmed[0] != "#":
                raise SeparatorError(f"invalid Yaml document separator: {trimmed}")
            if buffer:
                documents.append("".join(buffer))
                buffer = []
                continue
        buffer.append(line + "\n")
    if buffer:
        documents.append("".join(buffer))
    return documents


def _render(helm, native, request):
    helm.validate_release_name(request["release"])
    values = {}
    for path in request["values"]:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
        try:  # each document merged into the file's values, then the file into the values (MergeValues)
            current = {}
            for document in _documents(text):
                current = _merge_maps(current, _floats(helm.values_from_yaml(document)))
            values = _merge_maps(values, current)
        except SeparatorError as exc:
            raise helm.HelmError(f"failed to parse {path}: error reading yaml document: {exc}") from None
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
    typing = _typing_template(values, request.get("token") or "0")
    if typing is not None:  # deeper than every template of the chart and its subcharts: it runs first
        folder = os.path.join(request["chart"], "templates", *(["h"] * _deepest(request["chart"])))
        try:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, f"hooklint-int64-{request.get('token') or '0'}.yaml"), "w",
                      encoding="utf-8") as handle:  # fmt: skip
                handle.write(typing)
        except OSError as exc:  # a template path deeper than the file system allows
            raise helm.HelmError(f"hooklint could not give the --set integers Helm's int64 type: {exc.strerror}") from None
    with helm.Chart.load(request["chart"]) as loaded:
        # helm_render takes kube_version and api_versions (helm-c-sdk 0.2.2 RenderOptions), which
        # Chart.render does not pass on. Rendering processes dependencies (conditions, tags,
        # aliases) in place, so the CRDs read next are those of the enabled charts, as in Helm.
        manifests = json.loads(native.call_string(
            "helm_render", loaded._raw(), json.dumps(values), json.dumps(request["options"])
        ))  # fmt: skip
        crds = [{"filename": c["filename"], "data": c["data"]} for c in loaded.crds] if request["crds"] else []
    if typing is not None:
        ours = [name for name in manifests if name.endswith(f"/hooklint-int64-{request.get('token') or '0'}.yaml")]
        if not ours:  # .helmignore left it out: the integers would reach the templates as float64
            raise helm.HelmError("hooklint could not give the --set integers Helm's int64 type (the chart's "
                                 ".helmignore leaves out templates/h/)")  # fmt: skip
        for name in ours:
            del manifests[name]
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


#: The opening of the last stderr line of a child that failed on an exception of Python code (this
#: file, ``strvals.py``, helm-python-sdk's wrapper), not on an error of Helm's: ``helm.py`` reads it
#: as a fault of hooklint's, never as Helm's message.
FAULT = "hooklint-helm-child-fault: "


def _fault(exc):
    """``exc`` (an exception no code expected) as ``<type> at <file>:<line> in <function>``, where
    it was raised: its text is left out (it may quote a value of the chart or the Application)."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return f"{type(exc).__name__}{where}"


if __name__ == "__main__":
    try:
        main()
    except MemoryError:
        sys.stderr.write("MemoryError\n")
        sys.exit(3)
    except Exception as exc:  # noqa: BLE001 - a fault of Python code, never Helm's message: said so
        sys.stderr.write(f"{FAULT}{_fault(exc)}\n")
        sys.exit(4)
