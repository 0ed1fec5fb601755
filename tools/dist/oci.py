"""oci.py: the container image as an OCI image layout in one tar (OCI image spec 1.1: oci-layout,
index.json, blobs/sha256/), written without a container engine: for each architecture one layer
holding /hyrax (the static binary, the model inside), the licences and empty /tmp and /data (the
`FROM scratch` image a Dockerfile would make), its config (Entrypoint /hyrax serve, WorkingDir
/data, so `docker run -i -v FOLDER:/data IMAGE` serves FOLDER, and the MCP registry's label
io.modelcontextprotocol.server.name) and manifest; an image index over the architectures, tagged
with the version in index.json, each manifest also tagged VERSION-ARCH. Push or load with
`skopeo copy --all oci-archive:FILE:VERSION docker://...` (or podman load).
"""
import json
import os
import time

import meta

MT_INDEX = "application/vnd.oci.image.index.v1+json"
MT_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
MT_CONFIG = "application/vnd.oci.image.config.v1+json"
MT_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"


def _labels(version):
    return {"io.modelcontextprotocol.server.name": meta.MCP_NAME,
            "org.opencontainers.image.title": meta.COMMAND,
            "org.opencontainers.image.description": meta.SUMMARY,
            "org.opencontainers.image.version": version,
            "org.opencontainers.image.source": meta.REPOSITORY,
            "org.opencontainers.image.licenses": meta.LICENSE}


class _Blobs:
    """The content-addressed blobs of the layout."""

    def __init__(self):
        self.files = {}

    def add(self, media_type, data):
        digest = "sha256:" + meta.sha256_bytes(data)
        self.files[f"blobs/sha256/{digest[7:]}"] = data
        return {"mediaType": media_type, "digest": digest, "size": len(data)}

    def add_json(self, media_type, obj):
        return self.add(media_type, json.dumps(obj, sort_keys=True, separators=(",", ":")).encode())


def _layer(binary):
    """The uncompressed layer tar: the root file system of the image."""
    members = [("hyrax", meta.read(binary), 0o755), ("tmp", None, 0o1777), ("data", None, 0o755)]
    members += [(d, None, 0o755) for d in ("usr", "usr/share", "usr/share/doc", "usr/share/doc/hyrax")]
    members += [(f"usr/share/doc/hyrax/{name}", meta.read(path), 0o644) for name, path in meta.LICENSE_FILES]
    return meta.tar_bytes(members, gz=False)


def build(version, binaries, out_dir):
    """binaries: {arch: path}. Writes hyrax-VERSION-oci.tar; returns its path."""
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(meta.mtime()))
    blobs, manifests = _Blobs(), []
    for arch, binary in sorted(binaries.items()):
        layer = _layer(binary)
        config = {"created": created, "architecture": meta.ARCHES[arch]["oci"], "os": "linux",
                  "config": {"Entrypoint": ["/hyrax", "serve"], "WorkingDir": "/data",
                             "Labels": _labels(version)},
                  "rootfs": {"type": "layers", "diff_ids": ["sha256:" + meta.sha256_bytes(layer)]},
                  "history": [{"created": created, "created_by": "tools/dist/oci.py: the static hyrax binary"}]}
        manifest = {"schemaVersion": 2, "mediaType": MT_MANIFEST,
                    "config": blobs.add_json(MT_CONFIG, config),
                    "layers": [blobs.add(MT_LAYER, meta.gzip_bytes(layer))],
                    "annotations": _labels(version)}
        entry = blobs.add_json(MT_MANIFEST, manifest)
        entry["platform"] = {"architecture": meta.ARCHES[arch]["oci"], "os": "linux"}
        manifests.append(entry)
    image_index = blobs.add_json(MT_INDEX, {"schemaVersion": 2, "mediaType": MT_INDEX, "manifests": manifests,
                                            "annotations": _labels(version)})
    image_index["annotations"] = {"org.opencontainers.image.ref.name": version}
    # Each architecture's manifest is also tagged on its own (VERSION-amd64, ...): tools that do not
    # choose a platform from an index (umoci) can name one.
    tagged = [dict(m, annotations={"org.opencontainers.image.ref.name": f"{version}-{m['platform']['architecture']}"})
              for m in manifests]
    top = {"schemaVersion": 2, "mediaType": MT_INDEX, "manifests": [image_index] + tagged}
    members = [("oci-layout", b'{"imageLayoutVersion":"1.0.0"}', 0o644),
               ("index.json", json.dumps(top, sort_keys=True).encode(), 0o644),
               ("blobs", None, 0o755), ("blobs/sha256", None, 0o755)]
    members += [(name, data, 0o644) for name, data in sorted(blobs.files.items())]
    path = os.path.join(out_dir, f"{meta.COMMAND}-{version}-oci.tar")
    with open(path, "wb") as f:
        f.write(meta.tar_bytes(members, gz=False))
    return path
