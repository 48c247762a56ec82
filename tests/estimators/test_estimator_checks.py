"""scikit-learn's estimator checks for rlscore.estimators."""

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from rlscore.estimators import KernelRLS, KernelRLSCV  # noqa: E402

ESTIMATORS = [
    KernelRLS(),
    KernelRLS(kernel="rbf"),
    KernelRLS(kernel="poly"),
    KernelRLS(kernel="precomputed"),
    KernelRLSCV(),
    KernelRLSCV(kernel="rbf"),
    KernelRLSCV(cv=3),
    KernelRLSCV(cv="lpo"),
    KernelRLSCV(kernel="precomputed"),
]

# The only exemptions. With kernel="precomputed", X *is* the kernel matrix and RLS
# requires K + alpha I to be positive definite; both the Cholesky route (KernelRLS) and
# the eigendecomposition route (KernelRLSCV) refuse an indefinite matrix with a
# ValueError (KernelRidge silently falls back to least squares instead). Two checks feed matrices that are not kernel matrices:
_NOT_A_KERNEL_MATRIX = {
    "check_positive_only_tag_during_fit":
        "it subtracts a constant from every entry of a linear-kernel Gram matrix, which "
        "makes it indefinite: not a kernel matrix",
    "check_estimators_dtypes":
        "it truncates a Gram matrix to integers, which makes it indefinite: not a "
        "kernel matrix",
}


def expected_failed_checks(estimator):
    if isinstance(estimator, (KernelRLS, KernelRLSCV)) and estimator.kernel == "precomputed":
        return _NOT_A_KERNEL_MATRIX
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_default_estimators_have_no_exemptions():
    for est in ESTIMATORS:
        if est.kernel != "precomputed":
            assert expected_failed_checks(est) == {}
