from typing import Any

from manager.runtime.predicate import (
    AnnotationsChanged,
    GenerationChanged,
    LabelsChanged,
    ResourceVersionChanged,
    and_,
    new_predicate_funcs,
    not_,
    or_,
    turned_true,
)


def obj(**metadata: Any) -> dict[str, Any]:
    return {"metadata": {"name": "a", "namespace": "ns", **metadata}, "spec": {}}


def test_generation_changed_passes_spec_changes_and_drops_status_or_metadata_only_updates() -> None:
    assert GenerationChanged.update(obj(generation=1), obj(generation=2))
    assert not GenerationChanged.update(
        obj(generation=1, labels={"a": "1"}), obj(generation=1, labels={"a": "2"})
    )


def test_change_predicates_always_pass_creates_and_deletes() -> None:
    for predicate in [GenerationChanged, LabelsChanged, AnnotationsChanged]:
        assert predicate.create(obj())
        assert predicate.delete(obj())


def test_labels_changed_sees_added_changed_and_removed_labels() -> None:
    assert LabelsChanged.update(obj(), obj(labels={"app": "x"}))
    assert LabelsChanged.update(obj(labels={"app": "x"}), obj(labels={"app": "y"}))
    assert LabelsChanged.update(obj(labels={"app": "x"}), obj())
    assert not LabelsChanged.update(obj(labels={"app": "x"}), obj(labels={"app": "x"}))
    assert not LabelsChanged.update(obj(), obj(labels={})), "no labels and empty labels are equal"


def test_annotations_changed_ignores_label_changes() -> None:
    assert AnnotationsChanged.update(obj(), obj(annotations={"note": "x"}))
    assert not AnnotationsChanged.update(obj(), obj(labels={"app": "x"}))


def test_resource_version_changed_drops_resync_replays() -> None:
    assert ResourceVersionChanged.update(obj(resourceVersion="1"), obj(resourceVersion="2"))
    assert not ResourceVersionChanged.update(obj(resourceVersion="2"), obj(resourceVersion="2"))


def test_combinators_work_per_event() -> None:
    spec_or_labels = or_(GenerationChanged, LabelsChanged)
    assert spec_or_labels.update(obj(generation=1), obj(generation=1, labels={"a": "1"}))
    assert not spec_or_labels.update(obj(generation=1), obj(generation=1))

    both = and_(GenerationChanged, LabelsChanged)
    assert not both.update(obj(generation=1), obj(generation=2))
    assert both.update(obj(generation=1), obj(generation=2, labels={"a": "1"}))

    assert not_(GenerationChanged).update(obj(generation=1), obj(generation=1))
    assert not not_(GenerationChanged).create(obj())


def test_a_filter_function_applies_to_every_event_and_to_the_new_object_of_updates() -> None:
    managed = new_predicate_funcs(lambda o: o["metadata"].get("labels", {}).get("managed") == "1")
    yes, no = obj(labels={"managed": "1"}), obj()

    assert managed.create(yes)
    assert not managed.create(no)
    assert managed.delete(yes)
    assert managed.update(no, yes)
    assert not managed.update(yes, no)


def test_turned_true_passes_only_the_moment_an_object_starts_passing_the_test() -> None:
    ready = turned_true(lambda o: o["metadata"].get("labels", {}).get("ready") == "1")
    yes, no = obj(labels={"ready": "1"}), obj()

    assert ready.create(yes)
    assert not ready.create(no)
    assert ready.update(no, yes)
    assert not ready.update(yes, yes)  # still ready: a status tick, not the moment
    assert not ready.update(yes, no)
    assert not ready.delete(yes)
