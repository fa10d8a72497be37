"""`companion camera board -o FILE.pdf` and `companion camera calibrate`: print the ChArUco
board, then calibrate a camera's lens from views of it (vision.calibration). OpenCV is
imported inside the handlers, so `companion --help` stays fast."""

from __future__ import annotations

import argparse

from companion.outputs import BadOutput, checked_output, write_atomically

PAPERS = ("a4", "letter")
BOARD_PX_PER_MM = 10.0  # sharp square edges at print resolution, a 2.5k x 1.8k image


def board(args: argparse.Namespace) -> int:
    output = checked_output(args.output, args.force)
    from vision.calibration import board_pdf

    data, what = board_pdf(args.paper, BOARD_PX_PER_MM)
    try:
        write_atomically(output, data)
    except OSError as exc:
        raise BadOutput(f"cannot write {output}: {exc.strerror}") from None
    print(f"wrote {output}: {what}")
    return 0


def _positive(kind: type, what: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be above 0, got {text!r}")
        return value
    return parse


def calibrate(args: argparse.Namespace) -> int:
    from vision import calibration as cal
    from vision.sources import open_source
    from vision.sources.calibrated import camera_id

    with open_source(args.source, calibration="none") as source:
        camera = args.camera
        if camera is None:
            if source.name.partition(":")[0] not in ("picamera2", "cv"):
                raise BadOutput(f"{source.name} is not a camera: say which camera took the pictures with "
                                "--camera NAME (the name a camera's calibration is kept under, e.g. cv-0)")
            camera = camera_id(source)
        calibrator = cal.Calibrator(camera=camera, target_views=args.views, min_views=args.min_views,
                                    max_error_px=args.max_error)
        print(f"calibrating {camera} from {source.name}: move the printed board under the camera, "
              f"into every part of the view and tilted; {args.views} views wanted, "
              f"{args.min_views} at least, reprojection error {args.max_error:g} px at most")
        seen = 0
        try:
            for frame in source:
                seen += 1
                progress = calibrator.add_frame(frame.image)
                if progress.taken or seen % args.every == 0:
                    print(progress.line(), flush=True)
                if progress.done or (args.frames and seen >= args.frames):
                    break
        except KeyboardInterrupt:
            print("stopped: calibrating from the views taken")
    result = calibrator.result()
    path = result.save(args.output) if args.output else result.save()
    w, h = result.size
    print(f"saved {path}: {camera} at {w}x{h}, {result.views} views, frame covered {result.coverage:.0%}, "
          f"reprojection error {result.error_px:.2f} px (limit {args.max_error:g}); "
          f"fx {result.matrix[0, 0]:.1f}, fy {result.matrix[1, 1]:.1f}, centre ({result.matrix[0, 2]:.1f}, "
          f"{result.matrix[1, 2]:.1f}), distortion " + " ".join(f"{v:.4f}" for v in result.distortion))
    return 0


def register(cli) -> None:
    camera = cli.group("camera", "calibrate the camera's lens")
    p = camera.add_parser("board", help="a ChArUco calibration board as a PDF at true size",
                          description="Write the ChArUco board `companion camera calibrate` looks for, at "
                                      "true size on one sheet (7 x 5 squares of 36 mm). Print at 100%% and "
                                      "keep it flat.")
    p.add_argument("-o", "--output", required=True, metavar="FILE.pdf", help="the PDF to write")
    p.add_argument("--paper", choices=PAPERS, default="a4", help="paper size (default a4)")
    p.add_argument("--force", action="store_true", help="replace FILE.pdf if it exists")
    p.set_defaults(func=board)
    p = camera.add_parser("calibrate", help="calibrate the camera's lens from views of the board",
                          description="Collect views of the printed board while you move it under the "
                                      "camera, then compute the lens's intrinsics and distortion and keep "
                                      "them for this camera and resolution; every frame source then "
                                      "straightens its frames with them.")
    p.add_argument("--source", default="picamera2", metavar="SRC",
                   help="the camera (default picamera2; cv:N, or dir:PATH / file:PATH with --camera)")
    p.add_argument("--camera", metavar="NAME", default=None,
                   help="the name to keep the calibration under (default: the camera's own)")
    p.add_argument("--views", type=_positive(int, "a whole number"), default=20, metavar="N",
                   help="views to collect before calibrating (default 20)")
    p.add_argument("--min-views", type=_positive(int, "a whole number"), default=10, metavar="N",
                   help="fewer views than this are refused (default 10)")
    p.add_argument("--max-error", type=_positive(float, "a number of pixels"), default=1.0, metavar="PX",
                   help="refuse a reprojection error above this (default 1.0 px)")
    p.add_argument("--frames", type=_positive(int, "a whole number"), default=0, metavar="N",
                   help="stop after N frames even if fewer views were taken (default: no limit)")
    p.add_argument("--every", type=_positive(int, "a whole number"), default=15, metavar="N",
                   help="print the progress every N frames besides every view taken (default 15)")
    p.add_argument("-o", "--output", default=None, metavar="FILE.json",
                   help="write the calibration here instead of the data directory")
    p.set_defaults(func=calibrate)
