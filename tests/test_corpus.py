"""The public corpus: no crash, every finding inside its file and tied to an object, and the
reviewed findings pinned in a snapshot (tests/snapshots/corpus-public.txt).

Each snapshot line is ``path:line:column rule_id Kind/name``. The findings were read one by one
against their manifests; a change to this list is a change in behaviour to review, not to accept
blindly. Regenerate with ``HOOKLINT_UPDATE_SNAPSHOT=1 python -m pytest tests/test_corpus.py``.
"""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "public"
SNAPSHOT = REPO / "tests" / "snapshots" / "corpus-public.txt"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the clone")


@pytest.fixture(scope="module")
def result(corpus_result):
    """The corpus linted once for the session (conftest.py), shared with test_sarif.py."""
    return corpus_result


def snapshot_lines(result) -> list[str]:
    root = str(CORPUS) + os.sep
    return [
        f"{f.path.removeprefix(root)}:{f.span.line}:{f.span.column} {f.rule_id} {f.obj.label() if f.obj else '-'}"
        for f in result.findings
    ]


def test_no_input_errors(result):
    assert result.errors == []
    # 800 manifest files; 3 are never rendered by Argo CD (+argocd:skip-file-rendering markers); the
    # 50 files of the 19 kustomize Components (kind: Component) that no kustomization of the corpus
    # lists under components (their users were not copied) are rendered on their own (issue 22:
    # through a wrapper kustomization; they were 50 more skipped); an empty file (cert-manager/wait-todo.yaml) is read and holds nothing, as Argo CD reads it; the
    # files of a kustomization's folder are linted through its rendering, but for 29 that no
    # kustomization lists (commented-out resources, such as minio/base/link-minio.yaml), which
    # kustomize never renders
    assert (result.files, result.skipped) == (768, 32)
    assert result.renderers == [] or all(r.startswith(("kustomize ", "kubectl kustomize ")) for r in result.renderers)


def test_every_finding_lies_inside_its_file_and_names_an_object(result):
    lengths: dict[str, list[int]] = {}
    for f in result.findings:
        lines = lengths.setdefault(f.path, [len(l) for l in Path(f.path).read_text(encoding="utf-8-sig").splitlines()])
        assert 1 <= f.span.line <= len(lines), f
        assert 1 <= f.span.column <= lines[f.span.line - 1] + 1, f
        assert f.obj is not None or f.rule_id in ("HL001", "HL003", "HL007", "HL008", "HL009", "HL025"), f


def test_findings_match_the_reviewed_snapshot(result):
    lines = snapshot_lines(result)
    if os.environ.get("HOOKLINT_UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert lines == SNAPSHOT.read_text(encoding="utf-8").splitlines()
