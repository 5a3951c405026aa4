#!/bin/sh
# The static pictures: tracker flame and tracker diff to .png and .pdf.
# The PNG is read back pixel by pixel (Debian's python3-pil) and the PDF
# rendered to pixels first (poppler's pdftoppm, at 72 dpi so a point is a
# pixel): the image has the asked width, frames stand where the profile
# puts them, as wide as their share of the total, in the flame colours;
# the diff colours the frame that grew red and the one that shrank blue.

. "$(dirname "$0")/test-lib.sh"

PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c "import PIL" 2>/dev/null && command -v pdftoppm >/dev/null; then
	test_set_prereq PICTURES
else
	say "pictures are not read back: ci/install-deps.sh test installs python3-pil and poppler-utils"
fi

# (names whose flame colours differ, so the two frames are two spans)
printf "main;radiation 60\nmain;dynamics 40\n" >base.folded
printf "main;radiation 90\nmain;dynamics 10\n" >new.folded

# spans IMAGE ROW_FROM_BOTTOM: the runs of frame colour along the middle
# of the frame row ROW_FROM_BOTTOM levels above the bottom one (0: the
# root), as "x0 x1 r,g,b" lines. The background is grey-blue (r < b);
# a frame is any pixel that is not (flame colours are warm, diff frames
# red, blue or grey with a white 1-pixel gap between them).
cat >spans.py <<'EOF'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
row = int(sys.argv[2])
fh = float(sys.argv[3]) if len(sys.argv) > 3 else 16
# the bottom frame row: scan up from the bottom for the first row with a
# long run of non-background pixels (the root spans the whole width)
# background: the colour of the row's left margin (a vertical gradient)
def near(p, q):
    return max(abs(p[i] - q[i]) for i in range(3)) <= 12
y0 = None
for y in range(h - 1, 0, -1):
    m = im.getpixel((2, y))
    run = sum(1 for x in range(w) if not near(im.getpixel((x, y)), m))
    if run > w * 0.8:
        y0 = y
        break
if y0 is None:
    sys.exit("no root frame found")
# the second pixel row of the frame: above its label
y = int(y0 - (fh - 1) + 2 - row * fh)
m = im.getpixel((2, y))
def bg(p):
    return near(p, m)
def differ(p, q):
    return max(abs(p[i] - q[i]) for i in range(3)) > 30
spans, start, prev = [], None, None
for x in range(w):
    p = im.getpixel((x, y))
    f = not bg(p) and p != (255, 255, 255)
    if start is not None and (not f or differ(p, prev)):
        spans.append((start, x - 1, prev))
        start = None
    if f and start is None:
        start = x
    prev = p
if start is not None:
    spans.append((start, w - 1, prev))
print("size %d %d" % (w, h))
for a, b, c in spans:
    if b - a >= 3:
        print("%d %d %d,%d,%d" % (a, b, c[0], c[1], c[2]))
EOF

# check_flame SPANS: two frames above main, 60 and 40 of 100, warm.
check_flame() {
	awk '
		/^size/ { w = $2; next }
		{ n++; wid[n] = $2 - $1 + 1; split($3, c, ","); warm[n] = c[1] > c[3] }
		END {
			if (w != 800) { print "width " w; exit 1 }
			if (n != 2) { print n " frames in the row"; exit 1 }
			r = (wid[1] > wid[2] ? wid[1] : wid[2]) / (wid[1] + wid[2])
			if (r < 0.57 || r > 0.63) { print "share " r; exit 1 }
			if (!warm[1] || !warm[2]) { print "not flame colours"; exit 1 }
		}' "$1"
}

test_expect_success PICTURES 'flame .png: the frames, their widths and colours' '
	tracker flame base.folded --width 800 -o f.png &&
	"$PY" spans.py f.png 2 >spans &&
	cat spans &&
	check_flame spans
'

test_expect_success PICTURES 'flame .pdf: the same picture' '
	tracker flame base.folded --width 800 -o f.pdf &&
	head -c 5 f.pdf | grep -q "%PDF-" &&
	pdftoppm -r 72 -png -singlefile f.pdf fpdf &&
	"$PY" spans.py fpdf.png 2 >spans &&
	cat spans &&
	check_flame spans
'

test_expect_success PICTURES 'diff .png: the frame that grew red, the one that shrank blue' '
	tracker diff base.folded new.folded --width 800 -o d.png &&
	"$PY" spans.py d.png 2 >spans &&
	cat spans &&
	awk "
		/^size/ { next }
		{ n++; split(\$3, c, \",\"); wid = \$2 - \$1 + 1
		  if (c[1] == 255 && c[2] < 220 && c[3] < 220) red = wid
		  if (c[3] == 255 && c[1] < 220 && c[2] < 220) blue = wid }
		END {
			if (n != 2) { print n \" frames\"; exit 1 }
			if (!red || !blue) { print \"not one red and one blue frame\"; exit 1 }
			if (red / (red + blue) < 0.87 || red / (red + blue) > 0.93) { print \"widths\"; exit 1 }
		}" spans
'

test_expect_success PICTURES 'diff .pdf renders' '
	tracker diff base.folded new.folded --width 800 -o d.pdf &&
	pdftoppm -r 72 -png -singlefile d.pdf dpdf &&
	"$PY" spans.py dpdf.png 2 >spans &&
	test $(grep -vc "^size" spans) = 2
'

# A memory profile is told from a CPU one: its headline names the kind and
# the total (read back from the PDF's text), and it is drawn in the mem
# palette (green, no red) where a CPU profile is warm.
test_expect_success PICTURES 'flame of bytes: the headline names kind and total, mem colours' '
	tracker flame "$FIXTURES/profilecanvas/alloc.html" --width 800 -o m.pdf &&
	pdftotext m.pdf - >m.txt &&
	grep "^Bytes — 4.00 KiB$" m.txt &&
	# (the page flags its allocation leaves as GC: --no-categories shows
	# the palette of the kind alone)
	tracker flame --kind alloc --no-categories "$FIXTURES/profilecanvas/alloc.html" --width 800 -o m.png &&
	tracker flame --kind alloc "$FIXTURES/profilecanvas/alloc.html" -o m.txt &&
	grep "^Allocated bytes — 4.00 KiB$" m.txt &&
	"$PY" spans.py m.png 1 >spans &&
	cat spans &&
	awk "/^size/ { next } { n++; split(\$3, c, \",\"); if (c[1] > 40 || c[2] < 150) bad = 1 }
	     END { exit !(n >= 1 && !bad) }" spans &&
	tracker flame base.folded --width 800 -o cpu.pdf &&
	pdftotext cpu.pdf - | grep "^Profile — 100 samples$"
'

test_done
