"""The camera feed the screens show: it lives in the runtime (`runtime.feed`, and
`runtime.vision_process` for recognition in its own process); these names stay here for
the screens and the tests that read them."""

from __future__ import annotations

from runtime.feed import (  # noqa: F401
    MAT_LOST,
    MAX_PENDING_OBSERVATIONS,
    NO_CAMERA,
    OFF,
    OK,
    STARTING,
    Annotation,
    CameraFeed,
    CameraUnavailable,
    FeedConfig,
    Opener,
    Recognition,
    RecognizerFactory,
    Shot,
    vision_opener,
)
