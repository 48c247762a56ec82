"""Bad invocations found by an outside check of the command line: each gives its exit
status and one line naming the problem, never a traceback or a silently ignored
value."""

import pytest

from rlscore.cli import main


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("".join(f"{i % 3} qid:{i // 4} 1:{i * 0.37 % 1:.3f} 2:{i % 5}\n"
                            for i in range(16)))
    single = tmp_path / "single.txt"          # every query holds one example
    single.write_text("1 qid:1 1:1 2:1\n0 qid:2 1:1 2:0\n2 qid:3 1:0.5 2:3\n")
    return good, single, tmp_path


@pytest.mark.parametrize("command", [
    ["cv", "{single}", "--learner", "query-rankrls", "--regparams", "0.1,1", "--cv",
     "lqo"],
    ["cv", "{single}", "--learner", "query-rankrls", "--regparams", "0.1,1"],
    ["fit", "{single}", "-o", "{dir}/m.npz", "--learner", "query-rankrls",
     "--regparams", "0.1,1"],
])
def test_undefined_leave_query_out_measure_is_a_data_error(command, files, run_cli):
    good, single, d = files
    argv = [a.format(single=single, dir=d) for a in command]
    code, _, err = run_cli(argv)
    assert code == 1
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("rlscore: error: ") and "single.txt" in last
    assert "undefined" in last
    assert not (d / "m.npz").exists()


@pytest.mark.parametrize("options, option", [
    (["--measure", "p@-1"], "--measure"),
    (["--measure", "ndcg@0"], "--measure"),
    (["--measure", "map,cindex"], "--measure"),
    (["--folds", "1"], "--folds"),
])
def test_fit_without_a_grid_still_refuses_bad_selection_options(options, option, files,
                                                                run_cli):
    """``fit`` with one regparam does not select, but a malformed --measure / --folds is
    a usage error rather than a value dropped without a word."""
    good, _, d = files
    code, _, err = run_cli(["fit", good, "-o", d / "m.npz", "--regparam", "1", *options])
    assert code == 2
    assert option in err.strip().splitlines()[-1]
    assert not (d / "m.npz").exists()


@pytest.mark.parametrize("argv, option", [
    (["fit", "{good}", "-o", "{dir}/m.npz", "--cv", "kfold", "--seed", "-5"], "--seed"),
    (["cv", "{good}", "--seed", "x"], "--seed"),
    (["fit", "{good}", "-o", "{dir}/m.npz", "--kernel", "gaussian", "--basis", "5",
      "--basis-seed", "-1"], "--basis-seed"),
    (["demo", "--seed", "-1"], "--seed"),
])
def test_negative_seeds_are_usage_errors_naming_the_option(argv, option, files, capsys):
    good, _, d = files
    with pytest.raises(SystemExit) as exc:
        main([a.format(good=good, dir=d) for a in argv])
    assert exc.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"argument {option}: expected an integer >= 0" in last


def test_seed_zero_and_positive_still_work(files, run_cli):
    good, _, d = files
    for seed in ("0", "7"):
        code, _, err = run_cli(["cv", good, "--cv", "kfold", "--folds", "2", "--seed", seed,
                               "--regparams", "1"])
        assert code == 0, err


def test_evaluate_says_why_letor_ndcg_is_zero_on_short_queries(files, run_cli):
    """good.txt has 4 examples per query: LETOR NDCG@10 is 0 for each of them (the rule
    of Eval-Score-4.0.pl); the command says so instead of printing a bare 0."""
    good, _, d = files
    code, _, err = run_cli(["fit", good, "-o", d / "m.npz", "--learner", "query-rankrls",
                           "-q"])
    assert code == 0, err
    code, out, err = run_cli(["evaluate", d / "m.npz", good, "--measure", "ndcg@10,ndcg@4"])
    assert code == 0
    values = dict(line.split() for line in out.splitlines())
    assert float(values["ndcg@10"]) == 0.0 and float(values["ndcg@4"]) > 0.0
    # one note (rlscore.measure's, the one every face gives), for ndcg@10 only
    assert err.count("4 of 4 queries have fewer than 10 documents") == 1, err
    assert err.count("fewer than") == 1                 # cutoff 4 fits every query
    assert "'ndcg@4'" in err and "ndcg@10:standard" in err      # what to do
    code, out, err = run_cli(["evaluate", d / "m.npz", good, "--measure", "ndcg@4,map",
                             "--per-query"])
    assert code == 0 and err == ""
    code, out, err = run_cli(["evaluate", d / "m.npz", good, "--measure", "ndcg@10",
                             "--per-query"])
    assert code == 0 and err.count("fewer than 10 documents") == 1, err
    code, out, err = run_cli(["cv", good, "--learner", "query-rankrls", "--measure",
                             "ndcg@10", "--regparams", "1,2", "--cv", "lqo"])
    assert code == 0 and err.count("4 of 4 queries have fewer than 10 documents") == 1


def test_undefined_kfold_measure_without_qids_is_a_data_error(tmp_path, run_cli):
    """rankrls on 5 examples without qids: the default 5-fold CV holds out single
    examples, whose c-index is undefined (this was a traceback)."""
    f = tmp_path / "noqid.txt"
    f.write_text("1 1:1 2:1\n0 1:1 2:0\n2 1:0.5 2:3\n1 1:0.2 2:3\n-1 1:3 2:3\n")
    code, _, err = run_cli(["cv", f, "--learner", "rankrls", "--regparams", "0.1,10"])
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("rlscore: error: ")
    assert "undefined" in err
