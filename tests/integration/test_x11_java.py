#!/usr/bin/env python3
"""A Java Swing window started by the compositor draws its contents (red
team, session 32; docs/x11.md "Java programs").

Java's AWT draws a frame's contents once a reparenting window manager has
put its frame around it, unless it knows the window manager does not
reparent (_JAVA_AWT_WM_NONREPARENTING, or a few window managers' names).
wlroots' X window manager does not: a JFrame with a label, a text field
and a button stayed one flat grey for good. The compositor now sets the
variable for what it launches. Checked: the window of a program started
from [startup] shows more than a few colours (its widgets), takes typed
text (its action writes it to a file) and exits when closed from a
taskbar."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

DEMO = """
import javax.swing.*;
import java.nio.file.*;
public class Demo {
  public static void main(String[] a) {
    SwingUtilities.invokeLater(() -> {
      JFrame f = new JFrame("swingdemo");
      JTextField t = new JTextField(20);
      t.addActionListener(e -> {
        try { Files.writeString(Path.of(a[0]), t.getText()); } catch (Exception x) {}
      });
      JPanel p = new JPanel();
      p.add(new JLabel("Type here:"));
      p.add(t);
      p.add(new JButton("OK"));
      f.add(p);
      f.setSize(500, 200);
      f.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
      f.setVisible(true);
    });
  }
}
"""


def colours(img, w):
    """Colours in the window's part of the screen (clipped to it)."""
    seen = set()
    for y in range(max(0, w["y"]), min(img.height, w["y"] + w["height"]), 2):
        for x in range(max(0, w["x"]), min(img.width, w["x"] + w["width"]), 2):
            seen.add(img.pixel(x, y))
    return len(seen)


def test(h):
    with Session(h, "java", x11=True, start=False) as s:
        src = os.path.join(s.tmp, "Demo.java")
        out = os.path.join(s.tmp, "typed")
        with open(src, "w") as f:
            f.write(DEMO)
        # Started by the compositor: what a user's launcher, binding or
        # [startup] line gets.
        s.config_path = os.path.join(s.tmp, "smtwc.conf")
        with open(s.config_path, "w") as f:
            f.write(f"[startup]\nexec = java {src} {out}\n")
        s.start()
        s.wait_window(lambda w: w.get("title") == "swingdemo", timeout=120,
                      what="the Swing window")
        # Java draws the frame's background at once and its widgets after
        # the window manager's frame; a flat window is the failure. The
        # window's place is read again for each screenshot: Java moves it
        # after it is first mapped (in two loaded runs the screenshot
        # showed the widgets at the top left while the place read at
        # first was elsewhere).
        places = []

        def widgets(img):
            win = next((w for w in s.windows() if w.get("title") == "swingdemo"), None)
            if win is None:
                return False
            place = (win["x"], win["y"], win["width"], win["height"])
            if not places or places[-1] != place:
                places.append(place)
            n = colours(img, win)
            return n > 4 and n

        try:
            _, n = s.wait_screenshot(widgets, timeout=60, what="the Swing window's widgets drawn")
        finally:
            log(f"the Swing window's places (x, y, width, height): {places}")
        log(f"the Swing window shows {n} colours")
        s.run(["xdotool", "type", "--delay", "20", "hello swing"], timeout=30)
        s.run(["xdotool", "key", "Return"], timeout=30)
        s.wait_until(lambda: os.path.exists(out) and open(out).read() == "hello swing",
                     timeout=30, what="the text field's action to write what was typed")
        s.run([os.environ["SMT_DESKTOP_TOOL"], "toplevels", "close", "swingdemo"], timeout=10)
        s.wait_until(lambda: not [w for w in s.windows() if w.get("title") == "swingdemo"],
                     timeout=30, what="the Swing window to go when closed")


harness.main(test)
