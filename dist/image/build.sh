#!/usr/bin/env bash
# The container image (README.md, "Containers and Kubernetes"): rocetop, its
# entrypoint (dist/image/entrypoint.c), the shared libraries they and the
# verbs providers load, and nothing else (no shell, no package manager),
# built with buildah from scratch. Reproducible: every file and the image's
# dates are SOURCE_DATE_EPOCH (the last commit's time when unset), files go in
# as one tar sorted by name with numeric owners, so two builds of one tree
# give the same image ID.
# Usage: dist/image/build.sh BUILD IMAGE VERSION   (e.g. build localhost/rocetop:0.1.0 0.1.0)
# The image's files go in as IMAGE_DIR/rootfs.tar (BUILD/image by default;
# tests/image/lib.sh gives each build a directory of its own).
set -euo pipefail
BUILD=$1 IMAGE=$2 VERSION=$3
OUT=${IMAGE_DIR:-$BUILD/image}
EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
# The tree is staged outside BUILD: the Makefile reads every *.d below BUILD
# as header dependencies, and the image has a directory /etc/libibverbs.d.
ROOT=$(mktemp -d /tmp/rocetop-image.XXXXXX)
LIBDIR=/usr/lib/$(gcc -print-multiarch)
die() { echo "dist/image/build.sh: $*" >&2; exit 1; }
command -v buildah >/dev/null || die "buildah is not installed (make deps installs it)."

trap 'rm -rf "$ROOT"' EXIT
rm -rf "$OUT" && mkdir -p "$OUT" "$ROOT/usr/bin" "$ROOT/var/lib/rocetop" "$ROOT/etc" "$ROOT/tmp"
chmod 0700 "$ROOT/var/lib/rocetop"
chmod 1777 "$ROOT/tmp"
# Stripped copies: the debugging symbols are in the build tree, not the image.
for b in rocetop rocetop-entrypoint; do
	strip --strip-unneeded -o "$ROOT/usr/bin/$b" "$BUILD/$b"
done
# The verbs providers libibverbs loads for each RDMA device, and their list.
if [ -d "$LIBDIR/libibverbs" ]; then
	mkdir -p "$ROOT$LIBDIR/libibverbs" "$ROOT/etc/libibverbs.d"
	cp -L "$LIBDIR"/libibverbs/*.so "$ROOT$LIBDIR/libibverbs/"
	cp -L /etc/libibverbs.d/*.driver "$ROOT/etc/libibverbs.d/"
fi
# Every shared library those load, at the path the dynamic linker finds it.
libs=$(for f in "$ROOT"/usr/bin/* "$ROOT$LIBDIR"/libibverbs/*.so; do
	[ -e "$f" ] && ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
done | sort -u)
for l in $libs; do
	mkdir -p "$ROOT$(dirname "$l")"
	cp -L "$l" "$ROOT$l"
done
# The user a process of the image runs as (no name service in the image).
printf 'root:x:0:0:root:/var/lib/rocetop:/usr/bin/rocetop\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\n' >"$ROOT/etc/group"

tar -C "$ROOT" --sort=name --mtime="@$EPOCH" --owner=0 --group=0 --numeric-owner \
	--format=gnu \
	-cf "$OUT/rootfs.tar" .
ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true; rm -rf "$ROOT"' EXIT
buildah add --quiet "$ctr" "$OUT/rootfs.tar" / >/dev/null
buildah config --entrypoint '["/usr/bin/rocetop-entrypoint"]' --cmd '[]' \
	--workingdir /var/lib/rocetop --port 9465/tcp \
	--env ROCETOP_LISTEN=0.0.0.0:9465 --env ROCETOP_INTERFACES= --env ROCETOP_OPTS= \
	--label org.opencontainers.image.title=rocetop \
	--label org.opencontainers.image.description="RoCEv2 congestion per flow: Prometheus exporter" \
	--label org.opencontainers.image.version="$VERSION" "$ctr"
id=$(buildah commit --quiet --omit-history --timestamp "$EPOCH" --rm "$ctr" "$IMAGE")
echo "$IMAGE: image ${id:0:12}, $(buildah images --noheading --format '{{.Size}}' "$IMAGE" 2>/dev/null | head -1)"
