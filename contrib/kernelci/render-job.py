#!/usr/bin/env python3
#
# Render KernelCI's baseline-arm64 LAVA job for our platform with
# kernelci-core's own code, as kernelci-pipeline's scheduler does
# (src/scheduler.py; `kci job generate`): Runtime.get_params(),
# resolve_rootfs_params(), Platform.format_params(), LAVA.generate().
# Then check what the job asks LAVA's qemu device type for, on the
# template as it is and with our patch:
#
# - qemu-arm64 (-machine virt) renders the same job with and without the
#   patch: its defaults are unchanged;
# - qemu-r8a779m1-ulcb (platforms.yaml) boots the board's DTB with
#   console=ttySC0 from our QEMU binary and image, with the machine, CPU
#   and memory of the board.
#
# Needs checkouts of kernelci-core and kernelci-pipeline (not packaged by
# Debian, and PyPI is out of reach here: the search tool's fetch gives
# them), and their Python modules: jinja2, yaml, requests, pydantic.
# The node (a kbuild of arm64 defconfig) is made up, and the one HTTP
# request of that path, the build's metadata.json, is answered here.
#
#   contrib/kernelci/render-job.py --core ../kernelci-core \
#       --pipeline ../kernelci-pipeline
#
# SPDX-License-Identifier: GPL-2.0-or-later

import argparse
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from unittest import mock

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
PATCH = os.path.join(
    HERE, '0001-config-runtime-qemu-take-the-console-and-QEMU-from-t.patch')
PLATFORM = 'qemu-r8a779m1-ulcb'
DTB = 'dtbs/renesas/r8a779m1-ulcb.dtb'
BUILD_URL = 'https://files.example.org/kbuild-gcc-14-arm64'

NODE = {
    'id': '65a1b2c3d4e5f60718293a4b',
    'name': 'baseline-arm64',
    'kind': 'job',
    'parent': '65a1b2c3d4e5f60718293a00',
    'submitter': 'service:pipeline',
    'data': {
        'kernel_revision': {
            'tree': 'mainline', 'branch': 'master', 'describe': 'v6.12',
            'version': {'version': 6, 'patchlevel': 12},
        },
        'config_full': 'defconfig',
    },
    'artifacts': {
        'kernel': f'{BUILD_URL}/Image',
        'metadata': f'{BUILD_URL}/metadata.json',
    },
}


class MetadataResponse:
    """The kbuild's metadata.json, which lists the DTBs it built"""
    status_code = 200

    def json(self):
        return {'artifacts': {DTB: f'{BUILD_URL}/{DTB}'}}


def load_configs(kernelci, pipeline):
    data = kernelci.config.load_yaml([os.path.join(pipeline, 'config'),
                                      os.path.join(HERE, 'platforms.yaml')])
    filters = importlib.import_module(
        'kernelci.config.base').default_filters_from_yaml(data)
    configs = {'rootfs': data.get('rootfs', {})}
    # kernelci.config.load_data() less kernelci.legacy.config, which needs
    # pyelftools for nothing that this path uses
    for name in ('api', 'job', 'platform', 'runtime', 'storage'):
        module = importlib.import_module(f'kernelci.config.{name}')
        try:
            configs.update(module.from_yaml(data, filters))
        except AttributeError:
            # pydantic 1 (Debian 12's) has no model_validate: the same
            # Job objects, unvalidated
            configs['jobs'] = {n: module.Job(name=n, **c)
                               for n, c in data['jobs'].items()}
    return configs


def render(core, pipeline, platforms, job_name):
    """The job YAML of each of @platforms, rendered by kernelci-core in
    directory @core"""
    sys.path.insert(0, core)
    cwd = os.getcwd()
    # Production layout: the pipeline's templates first, then core's
    os.chdir(pipeline)
    try:
        kernelci = importlib.import_module('kernelci')
        importlib.import_module('kernelci.config')
        runtime_mod = importlib.import_module('kernelci.runtime')
        configs = load_configs(kernelci, pipeline)
        runtime = runtime_mod.get_runtime(
            configs['runtimes']['lava-collabora'],
            custom_template_dir=os.path.join(core, 'config', 'runtime'))
        job_config = configs['jobs'][job_name]
        out = {}
        for name in platforms:
            node = dict(NODE, artifacts=dict(NODE['artifacts']))
            job = runtime_mod.Job(node, job_config)
            job.platform_config = configs['platforms'][name]
            job.storage_config = configs['storage']['staging']
            with mock.patch('kernelci.runtime.requests.get',
                            return_value=MetadataResponse()):
                params = runtime.get_params(job, configs['api']['staging'])
            kernelci.config.resolve_rootfs_params(params, configs['rootfs'])
            rev = node['data']['kernel_revision']['version']
            extra = {'krev': f"{rev['version']}.{rev['patchlevel']}"}
            extra.update(job.config.params)
            params = job.platform_config.format_params(params, extra)
            out[name] = runtime.generate(job, params)
        return out
    finally:
        os.chdir(cwd)
        sys.path.remove(core)
        for mod in [m for m in sys.modules if m.split('.')[0] == 'kernelci']:
            del sys.modules[mod]


def action(job, name):
    return next(a[name] for a in job['actions'] if name in a)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--core', required=True,
                        help='a kernelci-core checkout (not modified)')
    parser.add_argument('--pipeline', required=True,
                        help='a kernelci-pipeline checkout')
    parser.add_argument('--job', default='baseline-arm64')
    parser.add_argument('--out', help='write the rendered jobs here')
    args = parser.parse_args()

    with open(os.path.join(HERE, 'scheduler.yaml'), encoding='utf-8') as f:
        entries = yaml.safe_load(f)['scheduler']
    assert any(e['job'] == args.job and PLATFORM in e['platforms']
               for e in entries), f'scheduler.yaml does not run {args.job}'

    with tempfile.TemporaryDirectory() as tmp:
        patched = os.path.join(tmp, 'kernelci-core')
        shutil.copytree(os.path.abspath(args.core), patched, symlinks=True,
                        ignore=shutil.ignore_patterns('.git'))
        subprocess.run(['patch', '-s', '-p1', '-d', patched, '-i', PATCH],
                       check=True)
        before = render(os.path.abspath(args.core),
                        os.path.abspath(args.pipeline), ['qemu-arm64'],
                        args.job)
        after = render(patched, os.path.abspath(args.pipeline),
                       ['qemu-arm64', PLATFORM], args.job)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for label, jobs in (('before', before), ('after', after)):
            for name, text in jobs.items():
                with open(os.path.join(args.out, f'{name}-{label}.yaml'),
                          'w', encoding='utf-8') as f:
                    f.write(text)

    checks = []

    def check(name, ok):
        checks.append(ok)
        print(f"{'ok' if ok else 'not ok'} {len(checks)} {name}")

    check('qemu-arm64 renders the same job with the patch',
          before['qemu-arm64'] == after['qemu-arm64'])
    virt = yaml.safe_load(after['qemu-arm64'])
    check('qemu-arm64 keeps console=ttyAMA0 and Debian\'s QEMU',
          'console=ttyAMA0,115200' in
          action(virt, 'deploy')['images']['kernel']['image_arg'] and
          action(virt, 'boot')['docker'] == {'binary': 'qemu-system-arm64',
                                              'image': 'kernelci/qemu'})
    job = yaml.safe_load(after[PLATFORM])
    images = action(job, 'deploy')['images']
    boot = action(job, 'boot')
    check(f'{PLATFORM} boots with console=ttySC0',
          'console=ttySC0,115200' in images['kernel']['image_arg'])
    check(f'{PLATFORM} boots the upstream DTB',
          images.get('dtb', {}).get('image_arg') == '-dtb {dtb}' and
          images['dtb']['url'] == f'{BUILD_URL}/{DTB}')
    check(f'{PLATFORM} runs our QEMU in its image',
          boot['method'] == 'qemu' and
          boot['docker'] == {'binary': 'qemu-system-aarch64-rcar',
                             'image': 'kernelci/qemu-rcar'})
    check(f'{PLATFORM} asks LAVA for the board',
          job['device_type'] == 'qemu' and
          {k: job['context'].get(k) for k in
           ('arch', 'machine', 'cpu', 'memory', 'console_device')} ==
          {'arch': 'arm64', 'machine': 'r8a779m1-ulcb', 'cpu': 'cortex-a57',
           'memory': '4G', 'console_device': 'ttySC0'})
    print(f'1..{len(checks)}')
    sys.exit(0 if all(checks) else 1)


if __name__ == '__main__':
    main()
