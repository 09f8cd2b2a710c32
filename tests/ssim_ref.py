"""SSIM computed apart from parity's imagecmp.c, for tests/test_imagecmp.c.

Written from Wang, Bovik, Sheikh and Simoncelli, "Image quality assessment:
from error visibility to structural similarity" (IEEE TIP 2004), section
III-C and their ssim_index.m, with numpy alone: each local statistic is a
direct 2-D 'valid' sum of the window's weights times the pixels under it
(no separable filter, no FFT, no library SSIM), so that a mistake in the C
code's arithmetic would not be repeated here.

    python tests/ssim_ref.py IMAGE_A IMAGE_B [IMAGE_A IMAGE_B ...]

Each IMAGE file is a line "h w c" then h*w*c bytes (row-major, channels
last). Prints one SSIM a line, as repr (17 significant digits).

The choices parity documents (include/parity/imagecmp.h): luma by BT.601
(Y = 0.299 R + 0.587 G + 0.114 B; one channel as it is), an 11x11
Gaussian window of sigma 1.5 normalised to sum 1, narrowed to the largest
odd side that fits an image smaller than 11, K1 = 0.01, K2 = 0.03, L = 255,
the mean of the SSIM map over the 'valid' positions.
"""

import sys

import numpy as np


def read_image(path):
    with open(path, "rb") as f:
        header = f.readline().split()
        h, w, c = (int(v) for v in header)
        data = f.read()
    if len(data) != h * w * c:
        raise SystemExit(f"{path}: {len(data)} bytes, expected {h * w * c}")
    return np.frombuffer(data, dtype=np.uint8).reshape(h, w, c)


def luma(img):
    x = img.astype(np.float64)
    if img.shape[2] >= 3:
        return 0.299 * x[:, :, 0] + 0.587 * x[:, :, 1] + 0.114 * x[:, :, 2]
    return x[:, :, 0]


def gaussian_window(side, sigma=1.5):
    r = side // 2
    w = np.empty((side, side))
    for i in range(side):
        for j in range(side):
            w[i, j] = np.exp(-((i - r) ** 2 + (j - r) ** 2) / (2 * sigma * sigma))
    return w / w.sum()


def filter_valid(img, win):
    """sum over the window of win[u, v] * img[i + u, j + v], for each
    position (i, j) where the window lies wholly inside the image."""
    side = win.shape[0]
    h, w = img.shape
    out = np.zeros((h - side + 1, w - side + 1))
    for u in range(side):
        for v in range(side):
            out += win[u, v] * img[u:u + h - side + 1, v:v + w - side + 1]
    return out


def ssim(a, b):
    if a.shape != b.shape:
        raise SystemExit("images of different sizes")
    x, y = luma(a), luma(b)
    h, w = x.shape
    side = min(11, h, w)
    if side % 2 == 0:
        side -= 1
    win = gaussian_window(side)
    c1 = (0.01 * 255) ** 2
    c2 = (0.03 * 255) ** 2
    mu_x = filter_valid(x, win)
    mu_y = filter_valid(y, win)
    sigma_xx = filter_valid(x * x, win) - mu_x * mu_x
    sigma_yy = filter_valid(y * y, win) - mu_y * mu_y
    sigma_xy = filter_valid(x * y, win) - mu_x * mu_y
    ssim_map = ((2 * mu_x * mu_y + c1) * (2 * sigma_xy + c2)) / (
        (mu_x * mu_x + mu_y * mu_y + c1) * (sigma_xx + sigma_yy + c2))
    return float(ssim_map.mean())


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        raise SystemExit("usage: ssim_ref.py IMAGE_A IMAGE_B [IMAGE_A IMAGE_B ...]")
    for i in range(0, len(argv), 2):
        print(repr(ssim(read_image(argv[i]), read_image(argv[i + 1]))))


if __name__ == "__main__":
    main(sys.argv[1:])
