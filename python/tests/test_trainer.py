"""heed.Trainer: the progress callback once per step with the run's numbers, False from it
stopping the run with its state saved (a second train() resumes), exceptions from it raised
out of train(), and heed.Error for a bad config."""
import pytest

import heed
from conftest import reversal_config


def test_reports_every_step_and_writes_the_model(tmp_path):
    trainer = heed.Trainer.from_yaml(reversal_config(tmp_path, 20))
    assert trainer.model_dir == str(tmp_path / "model")
    assert "max_steps: 20" in trainer.config_yaml
    seen = []
    result = trainer.train(seen.append)
    assert result.outcome == heed.Outcome.finished
    assert result.step == 20 and result.has_best
    assert [p.step for p in seen] == list(range(1, 21))
    assert all(p.total_steps == 20 and p.loss > 0 and p.learning_rate > 0 for p in seen)
    assert [p.step for p in seen if p.validated] == [10, 20]
    assert seen[9].new_best
    assert (tmp_path / "model").is_dir()
    heed.Translator.load(result.model_dir)


def test_false_stops_the_run_and_a_second_train_resumes(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(reversal_config(tmp_path, 20))
    trainer = heed.Trainer.from_file(str(config), ["training.lr=0.005"])
    assert "lr: 0.005" in trainer.config_yaml
    first = trainer.train(lambda p: p.step < 7)
    assert first.outcome == heed.Outcome.stopped and first.step == 7
    steps = []
    second = heed.Trainer.from_file(str(config), ["training.lr=0.005"]).train(
        lambda p: steps.append(p.step))
    assert second.outcome == heed.Outcome.finished and second.step == 20
    assert steps == list(range(8, 21))


def test_an_exception_in_the_callback_ends_train(tmp_path):
    def fail(p):
        if p.step == 3:
            raise ValueError("enough at step 3")
    with pytest.raises(ValueError, match="step 3"):
        heed.Trainer.from_yaml(reversal_config(tmp_path, 20)).train(fail)


def test_no_callback_and_the_log(tmp_path, capfd):
    result = heed.Trainer.from_yaml(reversal_config(tmp_path, 10)).train(log=True)
    assert result.step == 10
    assert capfd.readouterr().err != ""


def test_a_bad_key_is_a_heed_error_naming_it(tmp_path):
    with pytest.raises(heed.Error, match="no_such_key"):
        heed.Trainer.from_yaml(reversal_config(tmp_path) + "no_such_key: 1\n", source="mine.yaml")
    with pytest.raises(heed.Error, match="max_steps"):
        heed.Trainer.from_yaml(reversal_config(tmp_path), ["training.max_steps=-3"])


def test_a_missing_config_file_is_a_heed_error(tmp_path):
    with pytest.raises(heed.Error, match="missing.yaml"):
        heed.Trainer.from_file(str(tmp_path / "missing.yaml"))


def test_usage_errors_are_heed_errors():
    assert issubclass(heed.UsageError, heed.Error)
    assert issubclass(heed.Error, RuntimeError)
