"""What the compositor shows with an empty config (-c /dev/null): the colours
tests look for on screen and the headless output's size."""

BACKGROUND = (48, 48, 64)
FOCUSED = (76, 120, 153)
UNFOCUSED = (58, 58, 58)
OUTPUT_W, OUTPUT_H = 1280, 720
