# shellcheck shell=bash
# What the image's tests share (tests/image/test_*.sh), after tests/lib.sh:
# img_build builds the image under a tag of this run's own, removed on exit;
# img_podman finds the flags this machine's podman runs it with; pod starts a
# container, never privileged, in namespace B.

# img_build NAME: IMG built from this tree (dist/image/build.sh), removed on
# exit; its files' tar in IMG_DIR/rootfs.tar, below T (not BUILD/image, which
# the other image test's build would rewrite under it).
img_build() {
	IMG=localhost/rocetop-test-$1:$RT_ID IMG_DIR=$T/image-$1
	[ -x "$BUILD/rocetop-entrypoint" ] || { fail build "no $BUILD/rocetop-entrypoint (run make)"; exit 1; }
	rt_on_exit "podman rmi '$IMG' >/dev/null"
	IMAGE_DIR=$IMG_DIR dist/image/build.sh "$BUILD" "$IMG" 0.1.0 >"$T/build.out" 2>&1 ||
		{ fail build "dist/image/build.sh failed: $(tail -3 "$T/build.out")"; exit 1; }
}

# img_podman: G, podman's global flags and R, run's, that run the image: none,
# or (a sandbox without CAP_SYS_RESOURCE, hybrid cgroups) runc with cgroupfs
# and limits it may keep.
img_podman() {
	local try ok=0
	G=() R=()
	for try in "|" "--runtime runc --cgroup-manager=cgroupfs|--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"; do
		read -ra G <<<"${try%%|*}"
		read -ra R <<<"${try#*|}"
		[ "$(podman "${G[@]}" run --rm "${R[@]}" --cap-drop=ALL "$IMG" --version 2>"$T/podman.err")" = "rocetop 0.1.0" ] &&
			ok=1 && break
	done
	[ $ok = 1 ] || { fail podman "podman cannot run the image: $(tail -2 "$T/podman.err")"; exit 1; }
}

# pod NAME CAPS ARGS...: container NAME, detached, in namespace B, read-only,
# with the shipped seccomp profile (SECCOMP, when set, instead), every
# capability dropped and CAPS added; removed on exit. ARGS go to podman run
# before the image.
pod() {
	local name=$1 caps=$2
	shift 2
	rt_on_exit "podman ${G[*]} rm -f '$name' >/dev/null"
	podman "${G[@]}" run -d --name "$name" "${R[@]}" --network "ns:/run/netns/$B" --read-only \
		--security-opt "seccomp=${SECCOMP:-$PWD/dist/kubernetes/rocetop-seccomp.json}" --cap-drop=ALL \
		${caps:+--cap-add="$caps"} "$@" "$IMG" >/dev/null
}
