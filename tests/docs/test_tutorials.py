"""The tutorials of docs/tutorials run here, smaller, and their findings are checked.
(The documentation build runs their ``plot()`` at full size and draws the figures.)"""

import importlib.util
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
TUTORIALS = DOCS / "tutorials"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"tutorial_{name}", TUTORIALS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_auc_cv_lpo_unbiased_pooled_pessimistic():
    mod = _load("auc_cv")
    res = mod.run(repetitions=60, n_test=500, seed=1)
    lpo = np.array([dev[:, 0].mean() for dev in res.values()])
    pooled = np.array([dev[:, 1].mean() for dev in res.values()])
    averaged_sd = np.array([dev[:, 2].std() for dev in res.values()])
    lpo_sd = np.array([dev[:, 0].std() for dev in res.values()])
    assert np.all(np.abs(lpo) < 0.05)
    assert np.mean(pooled) < np.mean(lpo) - 0.015        # pooling biases AUC downwards
    assert np.mean(averaged_sd) > np.mean(lpo_sd)        # averaging is noisier than LPO
    assert "leave-pair-out" in mod.table(res)


def test_auc_cv_estimates_equal_retraining(rng):
    """The shortcuts behind the study against brute-force retraining."""
    from rlscore.learner import RLS
    from rlscore.datasets import make_classification
    mod = _load("auc_cv")
    X, y = make_classification(16, 3, 1.0, 0.5, random_state=2)
    _, (lpo, pooled, averaged) = mod.estimates(X, y, regparam=0.5, k=4, seed=3)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    hits = []
    for i in pos:
        for j in neg:
            keep = np.setdiff1d(np.arange(16), [i, j])
            p = RLS(X[keep], y[keep], regparam=0.5).predict(X[[i, j]])
            hits.append(1.0 if p[0] > p[1] else 0.5 if p[0] == p[1] else 0.0)
    assert lpo == pytest.approx(np.mean(hits), abs=1e-12)


def test_irrelevant_pairs():
    res = _load("irrelevant_pairs").run()
    assert res["within-query pairs"]["correct"] == [True, True]
    assert res["all pairs"]["correct"] == [False, False]
    assert res["within-query pairs"]["slope"] == pytest.approx(-1.0, abs=1e-4)
    assert res["all pairs"]["slope"] == pytest.approx(76 / 404, abs=1e-4)


def test_rare_positives():
    mod = _load("rare_positives")
    res = mod.run(repetitions=6, m=80, n_test=500)
    rls = np.array([np.mean(v) for v in res["rls"]])
    rank = np.array([np.mean(v) for v in res["rankrls"]])
    assert rls[-1] > rls[0] + 0.1 and rank[-1] > rank[0] + 0.1    # rarer is harder
    assert rank[-1] > 0.75 and np.max(np.abs(rank - rls)) < 0.05


def test_kronecker_settings_order():
    mod = _load("kronecker_settings")
    res = mod.run(*mod.synthetic(seed=3), grid=[0.1, 1.0, 10.0])
    c = {k[0]: v[0] for k, v in res.items()}
    assert c["A"] > max(c["B"], c["C"]) and min(c["B"], c["C"]) > c["D"] > 0.55


def test_kronecker_settings_script_on_davis_format(tmp_path):
    """The script the user runs with the Davis folder, on a tiny folder in that format."""
    from rlscore.datasets import make_drug_target
    KD, KT, Y = make_drug_target(8, 6, random_state=0)
    np.savetxt(tmp_path / "drug-target_interaction_affinities_Kd__Davis_et_al.2011v1.txt",
               10 ** (9 - (Y - Y.min() + 5)))
    np.savetxt(tmp_path / "drug-drug_similarities_2D.txt", KD)
    np.savetxt(tmp_path / "target-target_similarities_WS.txt", KT * 1000)
    res = subprocess.run([sys.executable, str(TUTORIALS / "kronecker_settings.py"),
                          "--davis", str(tmp_path)], capture_output=True, text=True,
                         timeout=300, cwd=str(tmp_path),
                         env={**os.environ, "MPLBACKEND": "Agg"})
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("|") > 20 and "D: both new" in res.stdout


@pytest.mark.slow
@pytest.mark.parametrize("name", ["auc_cv", "irrelevant_pairs", "rare_positives",
                                  "kronecker_settings"])
def test_tutorial_figures_render(name, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    _load(name).plot()
    plt.savefig(tmp_path / f"{name}.png")
    assert (tmp_path / f"{name}.png").stat().st_size > 1000
    plt.close("all")


@pytest.mark.slow
def test_docs_build_with_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("matplotlib")
    res = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
                          str(DOCS), str(tmp_path / "html")], capture_output=True,
                         text=True, timeout=1200, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr[-3000:]
    for name in ("auc_cv", "irrelevant_pairs", "rare_positives", "kronecker_settings"):
        assert list((tmp_path / "html").rglob(f"*{name}*.png")), name


def test_nystrom_basis_removal_cv_is_not_pessimistic():
    mod = _load("nystrom_basis_removal")
    res = mod.run(n_groups=40, per_group=10, n_folds=5, lambdas=[1e-8, 1e-3, 1.0, 1e3])
    small = 0                                   # lambda = 1e-8
    assert res["keep"][small] > 3 * res["remove"][small]     # keeping: pessimistic
    # with removal the estimate stays near the error on new groups (40 groups: noisy)
    assert res["remove"][small] < 2 * res["test"][small]
    np.testing.assert_allclose(res["keep"][-1], res["remove"][-1], rtol=0.05)
    assert "CV removing basis" in mod.table(res)


def _tiny_letor_folder(path):
    """Five parts S1..S5 in the LETOR format (qid, 8 dense features, # comments),
    queries of 6 to 14 documents, graded labels 0-2."""
    from rlscore.datasets import make_ranking_queries
    rng = np.random.default_rng(0)
    sizes = rng.integers(6, 15, size=40)
    X, y, q = make_ranking_queries(40, list(sizes), 8, random_state=1)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    part = np.repeat(np.arange(40) % 5, sizes)
    for i in range(5):
        rows = np.flatnonzero(part == i)
        lines = [f"{int(y[r])} qid:{q[r] + 1} "
                 + " ".join(f"{j + 1}:{X[r, j]:.6f}" for j in range(8))
                 + f" #docid = D{r}\n" for r in rows]
        (path / f"S{i + 1}.txt").write_text("".join(lines))
    return path


def test_letor_tutorial_on_letor_format(tmp_path):
    """The MQ2008 tutorial on a tiny folder in the LETOR format: the Python API and the
    command line give the same test NDCG@10 and MAP for QueryRankRLS."""
    folder = _tiny_letor_folder(tmp_path)
    mod = _load("letor_mq2008")
    parts = mod.read_parts(folder)
    res = mod.run(folder, folds=(1,), learners=["QueryRankRLS (linear)"], parts=parts)
    api = res["QueryRankRLS (linear)"][0]
    for rows in res.values():
        assert 0.0 <= rows[0]["ndcg10"] <= 1.0 and 0.0 < rows[0]["map"] <= 1.0
    # on this easy synthetic data both rankers beat a random order by far
    assert api["map"] > 0.7
    cli = mod.cli_fold(folder, 1, tmp_path / "work", learner="query-rankrls")
    assert cli["ndcg@10"] == pytest.approx(api["ndcg10"], abs=1e-12)
    assert cli["map"] == pytest.approx(api["map"], abs=1e-12)
    assert "| QueryRankRLS (linear) |" in mod.table(res)


@pytest.mark.parametrize("dataset", ["mq2008", "ohsumed"])
def test_letor_seven_column_table_by_the_commands(tmp_path, dataset):
    """The tutorial's seven-column table on a tiny LETOR folder (5 folds): every fold's
    row comes from `rlscore fit/predict/evaluate`, and equals the Python API's
    QueryRankRLS with the validation-MAP choice scored by rlscore.measure under the
    release's convention (OHSUMED: LETOR 3.0, short queries score P@10 = 0)."""
    import rlscore.measure as M
    folder = _tiny_letor_folder(tmp_path)
    mod = _load("letor_mq2008")
    name = "QueryRankRLS (linear)"
    res = mod.seven_columns(folder, dataset, learners=[name], workdir=tmp_path / "w")
    conv = mod.DATASETS[dataset]["convention"]
    parts = mod.read_parts(folder)
    assert [r["fold"] for r in res[name]] == [1, 2, 3, 4, 5]
    differs = False
    for row in res[name]:
        train, vali, (Xt, yt, qt) = mod.split(parts, row["fold"])
        predict, params = mod.query_rankrls(train, vali)
        P = predict(Xt)
        assert f"(regparam {params['regparam']:g})" in row["params"]
        for k in (1, 3, 10):
            assert row[f"ndcg@{k}"] == pytest.approx(M.ndcg(yt, P, qt, k=k), abs=1e-10)
            assert row[f"p@{k}"] == pytest.approx(
                M.precision_at_k(yt, P, qt, k=k, convention=conv), abs=1e-10)
        assert row["map"] == pytest.approx(M.mean_average_precision(yt, P, qt), abs=1e-10)
        differs |= row["p@10"] != M.precision_at_k(yt, P, qt, k=10)
    assert differs == (dataset == "ohsumed")      # the tiny folder has short queries
    text = mod.seven_column_table(res, dataset)
    v = np.array([r["map"] for r in res[name]])
    assert f"| {name} | " in text and f"{v.mean():.3f} ± {v.std(ddof=1):.3f} |" in text
    for published in mod.PUBLISHED[dataset][1]:
        assert f"| {published} (Liu (2011), Table 11." in text
    # easy synthetic data: above the published rows, except P@10 under LETOR 3.0 (most
    # tiny queries have fewer than 10 documents and score 0)
    assert mod.beats_published(res, dataset)[name] == (["P@10"] if dataset == "ohsumed"
                                                       else [])


def test_letor_learned_width_rows_by_the_commands(tmp_path):
    """The learned-width rows of the table on a tiny LETOR folder: every test row scored
    by `rlscore evaluate --predictions` equals rlscore.measure on the chosen candidate;
    the candidates are the isotropic and the ARD widths learned on the training part
    (LeaveQueryOutRankRLS on the same Nystrom basis), each with its regparam path; the
    two rows choose by validation MAP and NDCG@1 among the same candidates."""
    import rlscore.measure as M
    from rlscore.learner import LeaveQueryOutRankRLS
    folder = _tiny_letor_folder(tmp_path)
    mod = _load("letor_mq2008")
    names = [mod.LEARNED, mod.LEARNED_NDCG1]
    res = mod.seven_columns(folder, "mq2008", folds=(1, 2), learners=names,
                            workdir=tmp_path / "w", n_basis=40, maxiter=4)
    parts = mod.read_parts(folder)
    for fold in (1, 2):
        train, vali, (Xt, yt, qt) = mod.split(parts, fold)
        cands = mod.learned_candidates(train, 40, maxiter=4)
        assert {c[0]["ard"] for c in cands} == {False, True}
        assert len(cands) == 2 * (len(mod.RLS_GRID) + 1) - sum(
            c[0]["learned"] and c[0]["regparam"] in mod.RLS_GRID for c in cands)
        X, y, q = train
        cols = np.flatnonzero(X.max(0) > X.min(0))
        B = X[mod._basis_rows(X.shape[0], 40)][:, cols]
        lqo = LeaveQueryOutRankRLS(X[:, cols], y, q, kernel="GaussianKernel",
                                   gamma="learn", basis_vectors=B, restarts=0, maxiter=4)
        iso = [c for c in cands if not c[0]["ard"] and c[0]["learned"]][0]
        # the same search on copies of the arrays (BLAS rounding may differ by layout)
        assert iso[0]["gamma"] == pytest.approx(lqo.gamma, rel=1e-6)
        assert iso[0]["regparam"] == pytest.approx(lqo.regparam, rel=1e-6)
        np.testing.assert_allclose(iso[1](Xt), lqo.predict(Xt[:, cols]), rtol=1e-5)
        for name, measure in ((names[0], M.mean_average_precision),
                              (names[1], lambda a, b, c: M.ndcg(a, b, c, k=1))):
            row = [r for r in res[name] if r["fold"] == fold][0]
            best = max(measure(vali[1], p(vali[0]), vali[2]) for _, p in cands)
            params, predict = [c for c in cands if c[0] == row["params"]][0]
            assert measure(vali[1], predict(vali[0]), vali[2]) == best
            P = predict(Xt)
            assert row["map"] == pytest.approx(M.mean_average_precision(yt, P, qt),
                                               abs=1e-10)
            assert row["ndcg@1"] == pytest.approx(M.ndcg(yt, P, qt, k=1), abs=1e-10)
    assert f"| {names[0]} | " in mod.seven_column_table(res)


def test_letor_more_candidate_rows_by_the_commands(tmp_path):
    """The further rows of the LETOR table on a tiny folder (OHSUMED rules): each test
    row, scored by `rlscore evaluate --predictions`, equals rlscore.measure on the
    first candidate of the largest validation measure (MAP, or the mean of the seven
    measures under LETOR 3.0 rules) among its procedure's candidates."""
    import rlscore.measure as M
    folder = _tiny_letor_folder(tmp_path)
    mod = _load("letor_mq2008")
    res = mod.seven_columns(folder, "ohsumed", folds=(1,), learners=list(mod.MORE_LEARNERS),
                            workdir=tmp_path / "w")
    train, vali, (Xt, yt, qt) = mod.split(mod.read_parts(folder), 1)
    Xv, yv, qv = vali
    mean7 = mod.mean_of_seven("letor3")
    assert mean7(yv, Xv[:, 0], qv) == pytest.approx(np.mean(
        [M.ndcg(yv, Xv[:, 0], qv, k=k, convention="letor3") for k in (1, 3, 10)]
        + [M.precision_at_k(yv, Xv[:, 0], qv, k=k, convention="letor3") for k in (1, 3, 10)]
        + [M.mean_average_precision(yv, Xv[:, 0], qv)]), abs=1e-14)
    chosen = set()
    for name, learner in mod.MORE_LEARNERS.items():
        row = res[name][0]
        cands = learner.build(train)       # refitted: the same candidates as the run's
        measure = mod.mean_average_precision if learner.select == "map" else mean7
        scores = [measure(yv, p(Xv), qv) for _, p in cands]
        params, predict = cands[int(np.argmax(scores))]
        assert row["params"] == params, name
        P = predict(Xt)
        assert row["map"] == pytest.approx(M.mean_average_precision(yt, P, qt), abs=1e-10)
        for k in (1, 3, 10):
            assert row[f"ndcg@{k}"] == pytest.approx(
                M.ndcg(yt, P, qt, k=k, convention="letor3"), abs=1e-10)
            assert row[f"p@{k}"] == pytest.approx(
                M.precision_at_k(yt, P, qt, k=k, convention="letor3"), abs=1e-10)
        chosen.add(tuple(np.round(P, 8)))
    assert len(chosen) > 3          # the procedures do not all pick one model
    assert "| GlobalRankRLS (linear), chosen by validation MAP | " in \
        mod.seven_column_table(res, "ohsumed")


def test_letor_sum_kernel_candidates_against_the_closed_form(tmp_path):
    """sum_kernel_candidates against the reduced-set RankRLS solution written out:
    A = (K_r^T L K_r + lambda K_rr)^-1 K_r^T L y with the per-query centring L and the
    kernel w <x, z> / s + exp(-gamma |x - z|^2) computed by hand; the gain target."""
    from rlscore.learner import QueryRankRLS
    mod = _load("letor_mq2008")
    train, _, (Xt, _, _) = mod.split(mod.read_parts(_tiny_letor_folder(tmp_path)), 1)
    X, y, q = train
    B = X[mod._basis_rows(X.shape[0], 30)]
    s = np.mean(np.sum(X * X, axis=1))

    def k(A, Z, w, g):
        d2 = ((A[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
        return w * A @ Z.T / s + np.exp(-g * d2)
    L = np.eye(len(y))
    for v in np.unique(q):
        i = np.flatnonzero(q == v)
        L[np.ix_(i, i)] -= 1.0 / len(i)
    cands = mod.sum_kernel_candidates(train, n_basis=30, gammas=(0.5, 2.0),
                                      weights=(0.1, 3.0))
    assert len(cands) == 4 * len(mod.RLS_GRID)
    for params, predict in cands[::9]:
        w, g, lam = params["w"], params["gamma"], params["regparam"]
        K_r, K_rr = k(X, B, w, g), k(B, B, w, g)
        A = np.linalg.solve(K_r.T @ L @ K_r + lam * K_rr, K_r.T @ L @ y)
        np.testing.assert_allclose(predict(Xt), k(Xt, B, w, g) @ A, rtol=1e-7,
                                   atol=1e-9)
    lin = mod.linear_candidates(train, target=mod.gain)
    ref = QueryRankRLS(X, 2.0 ** y - 1.0, q, regparam=lin[3][0]["regparam"])
    np.testing.assert_allclose(lin[3][1](Xt), ref.predict(Xt), rtol=1e-10)


def test_pairwise_mkl_weights_single_out_the_generating_term():
    mod = _load("pairwise_mkl")
    drugs, targets, Y = mod.synthetic(n_drugs=16, n_targets=14, seed=1)
    res = mod.run(drugs, targets, Y, n_folds=2, grid=(0.1, 1.0), singles=False)
    for setting, r in res.items():
        assert np.unravel_index(np.argmax(r["weights"]), (3, 3)) == (0, 1), setting
        assert r["weights"].sum() == pytest.approx(1.0)
    assert res["A: new pairs"]["c"]["learned"] > 0.7
    assert "learned weights" in mod.table(res, list(drugs), list(targets))


def test_pairwise_mkl_script_on_davis_format(tmp_path):
    """The script on a tiny folder in the Davis format (kernels, SMILES, sequences)."""
    import json
    from rlscore.datasets import make_drug_target
    KD, KT, Y = make_drug_target(18, 15, random_state=0)
    np.savetxt(tmp_path / "drug-target_interaction_affinities_Kd__Davis_et_al.2011v1.txt",
               10 ** (9 - (Y - Y.min() + 5)))
    np.savetxt(tmp_path / "drug-drug_similarities_2D.txt", KD)
    np.savetxt(tmp_path / "target-target_similarities_WS.txt", KT * 1000)
    rng = np.random.default_rng(0)
    letters = np.array(list("CNOS()=c1"))
    (tmp_path / "ligands_can.txt").write_text(json.dumps(
        {str(i): "".join(rng.choice(letters, 20)) for i in range(18)}))
    amino = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    (tmp_path / "proteins.txt").write_text(json.dumps(
        {f"K{i}": "".join(rng.choice(amino, 60)) for i in range(15)}))
    res = subprocess.run([sys.executable, str(TUTORIALS / "pairwise_mkl.py"),
                          "--davis", str(tmp_path), "--folds", "2"], capture_output=True,
                         text=True, timeout=300, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "D: both new" in res.stdout and "SMILES 3-mers" in res.stdout


def _drug_target_small(seed=0):
    from rlscore.datasets import make_drug_target
    KD, KT, Y = make_drug_target(12, 9, random_state=seed)
    return KD, KT, Y + 5.0               # an offset like pKd's: the script centres it


def test_drug_target_setting1_reads_row_major_folds():
    """setting1 on DeepDTA-style row-major fold indices equals a brute-force solve
    (np.kron) on the training pairs at the chosen regparam."""
    from rlscore.measure import cindex
    mod = _load("drug_target")
    KD, KT, Y = _drug_target_small()
    n1, n2 = Y.shape
    perm = np.random.default_rng(1).permutation(n1 * n2)   # row-major flat indices
    test, train = perm[:20], [perm[20 + k::5] for k in range(5)]
    res = mod.setting1(KD, KT, Y, test, train, grid=[4.0, 1.0, 0.25])
    tr = np.concatenate(train)
    r, c = tr // n2, tr % n2                               # row-major by hand
    rt, ct = test // n2, test % n2
    mu = Y[r, c].mean()
    K = np.kron(KD, KT)                                    # row-major pair order
    a = np.linalg.solve(K[np.ix_(tr, tr)] + res["regparam"] * np.eye(tr.size),
                        Y[r, c] - mu)
    p = K[np.ix_(test, tr)] @ a + mu
    assert res["mse"] == pytest.approx(np.mean((Y[rt, ct] - p) ** 2), rel=1e-4)
    assert res["ci"] == pytest.approx(cindex(Y[rt, ct], p), abs=1e-9)


def test_drug_target_settings_bcd_nested_selection_equals_refits():
    """Setting B: each outer fold's predictions equal a brute-force refit (np.kron) on
    the outer training drugs at the regparam that the brute-force inner drug-wise CV
    picks."""
    mod = _load("drug_target")
    KD, KT, Y = _drug_target_small(2)
    grid = [2.0, 0.5, 0.125]
    trace = {}
    res = mod.settings_bcd(KD, KT, Y, k=3, grid=grid, trace=trace)
    assert set(res) == {"B", "C", "D"} and not np.isnan(trace["B"]["P"]).any()
    for setting, n_blocks in (("B", 3), ("C", 3), ("D", 9)):
        # the per-fold MSEs, weighted by the sizes of the blocks, are the pooled MSE
        ci, err = mod.fold_scores(trace[setting], Y)
        sizes = [(R.size or Y.shape[0]) * (C.size or Y.shape[1])
                 for R, C, *_ in trace[setting]["folds"]]
        assert ci.size == err.size == n_blocks and np.all((ci >= 0) & (ci <= 1))
        assert np.average(err, weights=sizes) == pytest.approx(res[setting][1], rel=1e-12)

    def refit(K1, Ytr, lam):
        K = np.kron(KT, K1)                               # column-major pairs
        a = np.linalg.solve(K + lam * np.eye(K.shape[0]), Ytr.ravel(order="F"))
        return a.reshape(Ytr.shape, order="F")

    for R, _, inner, _, lam in trace["B"]["folds"]:
        T1 = np.setdiff1d(np.arange(Y.shape[0]), R)
        Ytr = Y[T1] - Y[T1].mean()
        errs = []
        for g in grid:
            sq = 0.0
            for F in inner:
                keep = np.setdiff1d(np.arange(T1.size), F)
                A = refit(KD[np.ix_(T1[keep], T1[keep])], Ytr[keep], g)
                sq += np.sum((KD[np.ix_(T1[F], T1[keep])] @ A @ KT - Ytr[F]) ** 2)
            errs.append(sq)
        assert lam == grid[int(np.argmin(errs))]
        A = refit(KD[np.ix_(T1, T1)], Ytr, lam)
        np.testing.assert_allclose(trace["B"]["P"][R],
                                   KD[np.ix_(R, T1)] @ A @ KT + Y[T1].mean(), atol=1e-9)


def test_kernel_learning_tutorial_switches_noise_off():
    """The kernel-learning tutorial, small: one learned gamma reaches the grid's LOO
    error; ARD widths switch the noise features off and beat one gamma on them."""
    pytest.importorskip("sklearn")
    mod = _load("kernel_learning")
    res = mod.run(sets=("synthetic",), m_synthetic=200, gpr_restarts=0)
    rows = res["synthetic"]["rows"]
    assert rows["LOO gradient, one gamma"]["loo"] <= rows["10 x 13 grid, exact LOO"]["loo"]
    ard = rows["LOO gradient, ARD"]
    assert ard["mse"] < 0.5 * rows["LOO gradient, one gamma"]["mse"]
    ls = ard["length_scales"]
    assert np.median(ls[2:]) > 10 * np.max(ls[:2])     # most noise features off
    assert np.isfinite(rows["LOO gradient, ARD, bayes"]["mse"])
    assert np.isfinite(rows["GPR, ARD RBF + White"]["loo"])      # LOO at the GP's point
    assert "length-scales" in mod.table(res)


def test_drug_target_metz_settings_equal_refits():
    """Metz protocol on a small incomplete matrix, settings A-D: the outer folds are
    those of pairwise_mkl.splits (test drugs / targets absent from training in B, C,
    D), and every fold's regparam, test c-index and MSE equal a brute-force solve
    (np.kron) on the inner and outer training pairs."""
    from rlscore.measure import cindex
    mod = _load("drug_target")
    KD, KT, Y = _drug_target_small(3)
    Y = Y.copy()
    Y[np.random.default_rng(0).random(Y.shape) < 0.3] = np.nan
    grid = (4.0, 1.0)
    res = mod.metz_settings(KD, KT, Y, k=3, grid=grid, maxiter=500)
    rows, cols = np.where(~np.isnan(Y))
    y = Y[rows, cols]
    K = np.kron(KD, KT)
    flat = rows * Y.shape[1] + cols

    def solve(idx, lam):
        mu = y[idx].mean()
        a = np.linalg.solve(K[np.ix_(flat[idx], flat[idx])] + lam * np.eye(idx.size),
                            y[idx] - mu)
        return lambda te: K[np.ix_(flat[te], flat[idx])] @ a + mu

    for setting in "ABCD":
        rng = np.random.default_rng(0)
        outer = mod.splits(setting, rows, cols, 3, rng)
        assert [r["n_test"] for r in res[setting]] == [te.size for _, te in outer]
        if setting != "D":
            assert sum(te.size for _, te in outer) == y.size
        for row, (tr, te) in zip(res[setting], outer):
            if setting in "BD":
                assert not set(rows[te]) & set(rows[tr])
            if setting in "CD":
                assert not set(cols[te]) & set(cols[tr])
            itr, iva = mod.splits(setting, rows[tr], cols[tr], 3, rng)[0]
            errs = [np.mean((y[tr[iva]] - solve(tr[itr], g)(tr[iva])) ** 2) for g in grid]
            assert row["regparam"] == grid[int(np.argmin(errs))]
            p = solve(tr, row["regparam"])(te)
            assert row["mse"] == pytest.approx(np.mean((y[te] - p) ** 2), rel=1e-4)  # tol 1e-5
            assert row["ci"] == pytest.approx(cindex(y[te], p), abs=1e-9)
    assert "| D: both new | 3 |" in mod.metz_table(res)


def test_letor_boosted_rounds_chosen_by_validation_map():
    """_boosted_by_map keeps the (setting, number of trees) of the largest validation
    MAP, the first on ties, against a search by hand over fake boosters whose first t
    trees give known scores."""
    import rlscore.measure as M
    mod = _load("letor_mq2008")
    rng = np.random.default_rng(0)
    yv = rng.integers(0, 3, 40).astype(float)
    qv = np.repeat(np.arange(8), 5)
    noise = {s: rng.normal(size=(6, 40)) for s in (1, 2)}

    def fit(setting):
        # the more trees, the less noise; setting 2 is noisier after 30 trees
        def predict(Z, t):
            scale = 3.0 / t if setting[1] == 1 else (1.0 / t if t <= 30 else 5.0)
            return yv + scale * noise[setting[1]][t // 10 - 1]
        return predict
    settings = [("depth", 1), ("depth", 2)]
    predict, desc = mod._boosted_by_map(fit, settings, (None, yv, qv), n_rounds=60)
    table = [(M.mean_average_precision(yv, fit(s)(None, t), qv), -i, -t, s, t)
             for i, s in enumerate(settings) for t in range(10, 61, 10)]
    best = max(table)
    assert desc == f"depth {best[3][1]}, {best[4]} trees"
    np.testing.assert_array_equal(predict(None), fit(best[3])(None, best[4]))


def test_drug_target_new_drug_intervals_equal_refits():
    """new_drug_intervals: per outer fold of drugs, the alpha of a brute-force
    leave-one-drug-out CV (np.kron refits), and the coverage of jackknife+ intervals
    built from refits without each training drug."""
    import math
    from rlscore.core.selection import DEFAULT_REGPARAMS
    mod = _load("drug_target")
    KD, KT, Y = _drug_target_small(3)
    n1, n2 = Y.shape
    res = mod.new_drug_intervals(KD, KT, Y, alpha=0.2, k=3, seed=0)
    folds = mod.object_folds(n1, 3, np.random.default_rng(0))

    def fit(T, Yc, lam):
        K = np.kron(KT, KD[np.ix_(T, T)])
        a = np.linalg.solve(K + lam * np.eye(K.shape[0]), Yc[T].ravel(order="F"))
        return a.reshape((T.size, n2), order="F")

    covered = []
    for R, chosen in zip(folds, res["alphas"]):
        T = np.setdiff1d(np.arange(n1), R)
        Yc = Y - Y[T].mean()
        errs = []
        for lam in DEFAULT_REGPARAMS:
            sq = 0.0
            for i in T:
                keep = T[T != i]
                sq += np.sum((KD[i, keep] @ fit(keep, Yc, lam) @ KT - Yc[i]) ** 2)
            errs.append(sq)
        lam = DEFAULT_REGPARAMS[int(np.argmin(errs))]
        assert chosen == lam
        # jackknife+ by drug: the model without training drug i, its residuals on i
        lo_terms, hi_terms = [], []
        for i in T:
            keep = T[T != i]
            A = fit(keep, Yc, lam)
            r = np.abs(Yc[i] - KD[i, keep] @ A @ KT)             # (n2,) residuals
            mu = KD[np.ix_(R, keep)] @ A @ KT                    # at the test pairs
            lo_terms.append(mu[:, :, None] - r)
            hi_terms.append(mu[:, :, None] + r)
        lo = np.sort(np.concatenate(lo_terms, axis=2), axis=2)
        hi = np.sort(np.concatenate(hi_terms, axis=2), axis=2)
        m = T.size * n2
        k_hi = math.ceil(0.8 * (m + 1) - 1e-9)
        yt = Yc[R]
        covered.append(((lo[:, :, m + 1 - k_hi - 1] <= yt) &
                        (yt <= hi[:, :, k_hi - 1])).ravel())
    assert res["coverage"] == pytest.approx(np.mean(np.concatenate(covered)), abs=1e-12)


def test_survival_gbsg2_small():
    """The GBSG2 survival tutorial on a subset: every rlscore model ranks the held-out
    patients better than chance, and the exact hold-out selection of regparam is the
    selection by refits."""
    import contextlib
    from rlscore.core.survival import SurvivalRankRLSModel
    try:        # many small BLAS calls: threads on a busy machine only add waiting
        from threadpoolctl import threadpool_limits
        limit = threadpool_limits(limits=1)
    except ImportError:
        limit = contextlib.nullcontext()
    with limit:
        _survival_gbsg2_small(SurvivalRankRLSModel)


def _survival_gbsg2_small(SurvivalRankRLSModel):
    mod = _load("survival")
    res = mod.run(n_rows=240, n_folds=3, sksurv=False)
    assert len(res) == 3
    for name, (c, secs) in res.items():
        assert c.shape == (3,) and np.all(secs >= 0)
        assert c.mean() > 0.6, name
    assert "survival RankSVM" in mod.table(res)
    # select_rankrls (one exact hold-out for the whole grid) against refits
    from rlscore.datasets import load_gbsg2
    columns, time, event = load_gbsg2()
    X = mod.encode(columns)[:150]
    X = (X - X.mean(0)) / X.std(0)
    time, event = time[:150], event[:150]
    inner = mod.folds_of(150, 3, 0)
    predict = mod.select_rankrls(X, time, event, inner, "LinearKernel")

    def refit(Xr, tr, er, lam):
        return SurvivalRankRLSModel(Xr, tr, er, lam).predictor.predict
    by_refits = mod.select_by_refits(X, time, event, inner, mod.RLS_GRID, refit)
    np.testing.assert_allclose(predict(X), by_refits(X), rtol=1e-8, atol=1e-10)


def test_survival_six_sets_small():
    """The six-set option of the survival tutorial on two small subsets: the loader
    drops exactly the rows with a missing value (counted by pandas here), the bounded
    Nystrom Gaussian RankRLS selects as refits on the same centres do, a "not run" cell
    is shown as such, and the rlscore models rank better than chance."""
    pytest.importorskip("sksurv")
    import contextlib
    from sksurv.datasets import load_flchain
    from rlscore.core.survival import SurvivalRankRLSModel
    mod = _load("survival")
    Xdf, y = load_flchain()
    X, time, event, dropped = mod.load_set("FLCHAIN")
    assert dropped == int((Xdf.drop(columns=["chapter"]).isna().any(axis=1).to_numpy()
                           | (y["futime"] <= 0)).sum())
    assert time.min() > 0
    assert X.shape[0] == len(Xdf) - dropped and np.isfinite(X).all()
    try:
        from threadpoolctl import threadpool_limits
        limit = threadpool_limits(limits=1)
    except ImportError:
        limit = contextlib.nullcontext()
    with limit:
        res = mod.run_sets(("veterans", "FLCHAIN"), n_rows=90, sksurv=False,
                           not_run={("FLCHAIN", "RankSVM"): "a reason"})
        assert set(res["veterans"]["results"]) == set(mod.methods(False))
        assert len(res["FLCHAIN"]["results"]) == 2
        for r in res.values():
            for name, (c, _) in r["results"].items():
                assert c.shape == (5,) and c.mean() > 0.55, name
        tab = mod.table_sets(res)
        assert "not run (a reason)" in tab and "veterans (90 rows" in tab
        # the Nystrom variant (MAX_DUAL exceeded) against refits on the same centres
        mod.MAX_DUAL, mod.NYSTROM_CENTRES = 40, 15      # a fresh module: no restore
        mod.GAMMAS, mod.RLS_GRID = (0.25, 4.0), (2.0 ** -4, 1.0, 2.0 ** 4)
        out = mod.run(data=(X[:90], time[:90], event[:90]), n_folds=3,
                      sksurv=False, only=None, skip=("linear",))
        assert list(out) == ["survival RankRLS, Gaussian, 15 Nystrom centres (rlscore)"]
        Xs = (X[:80] - X[:80].mean(0)) / np.where(X[:80].std(0) > 0, X[:80].std(0), 1)
        t, e = time[:80], event[:80]
        inner = mod.folds_of(80, 3, 0)
        basis = Xs[np.sort(np.random.default_rng(0).choice(80, 15, replace=False))]
        predict = mod.select_rankrls(Xs, t, e, inner, "GaussianKernel", n_basis=15)
        best = None
        d = Xs.shape[1]
        for g in mod.GAMMAS:
            def refit(Xr, tr, er, lam, g=g):
                return SurvivalRankRLSModel(Xr, tr, er, lam, "GaussianKernel",
                                            basis_vectors=basis, gamma=g / d
                                            ).predictor.predict
            for lam in mod.RLS_GRID:
                preds = [refit(Xs[np.setdiff1d(np.arange(80), h)],
                               t[np.setdiff1d(np.arange(80), h)],
                               e[np.setdiff1d(np.arange(80), h)], lam)(Xs[h])
                         for h in inner]
                c = mod.pooled_c(t, e, inner, preds)
                if best is None or c > best[0]:
                    best = (c, refit(Xs, t, e, lam))
        np.testing.assert_allclose(predict(Xs), best[1](Xs), rtol=1e-7, atol=1e-9)


def test_drug_target_metz_new_drugs_intervals_equal_refits():
    """metz_new_drugs on small incomplete data: the CV+ intervals by drug (mean width)
    equal the ones computed from explicit solves of the sampled systems without each
    inner fold of drugs, and the learned row reports a finite score."""
    import math
    mod = _load("drug_target")
    from rlscore.datasets import make_drug_target
    KD, KT, Y = make_drug_target(15, 8, random_state=4)
    Y = Y + 5.0
    Y[np.random.default_rng(0).random(Y.shape) < 0.35] = np.nan
    logs = []
    out = mod.metz_new_drugs(KD, KT, Y, k=3, n_outer=1, log=lambda *a: logs.append(a),
                             opts=dict(maxiter=500, n_learn=60, max_evaluations=8))
    lam = [a[1] for a in logs if a[0] == "grid"][0]
    rows, cols = np.where(~np.isnan(Y))
    y = Y[rows, cols]
    rng = np.random.default_rng(0)
    R = mod.object_folds(15, 3, rng)[0]
    inner = mod.object_folds(15, 3, rng)
    te, tr = np.flatnonzero(np.isin(rows, R)), np.flatnonzero(~np.isin(rows, R))
    KDs, _ = mod.repair_kernel(0.5 * (KD + KD.T), "shift", "KD")
    KTs, _ = mod.repair_kernel(0.5 * (KT + KT.T), "shift", "KT")
    K = KDs[np.ix_(rows, rows)] * KTs[np.ix_(cols, cols)]
    mu = y[tr].mean()
    res, mus = [], []
    for F in inner:
        hold = tr[np.isin(rows[tr], F)]
        sub = tr[~np.isin(rows[tr], F)]
        a = np.linalg.solve(K[np.ix_(sub, sub)] + lam * np.eye(sub.size), y[sub] - mu)
        res.extend(y[hold] - mu - K[np.ix_(hold, sub)] @ a)
        mus.extend([K[np.ix_(te, sub)] @ a] * hold.size)
    res, mus = np.abs(np.array(res)), np.array(mus)            # (m,), (m, t)
    m = res.size
    lo = np.sort(mus - res[:, None], axis=0)[math.floor(0.1 * (m + 1)) - 1]
    hi = np.sort(mus + res[:, None], axis=0)[math.ceil(0.9 * (m + 1)) - 1]
    coverage, width, _ = out["intervals"][0]
    assert width == pytest.approx(np.mean(hi - lo), rel=1e-4)
    yt = y[te] - mu
    assert coverage == pytest.approx(np.mean((lo <= yt) & (yt <= hi)), abs=1.5 / te.size)
    ci, err, _, r = out["learned"][0]
    assert 0 <= ci <= 1 and np.isfinite(err) and np.isfinite(r)
