#!/bin/bash
# Shared by the uts job scripts in this folder (sweep.sbatch, hybrid.sbatch,
# study.sbatch): finding the binary, checking the input before any run, and
# saying how to submit when run outside a job. Sourced, not run.
# Every check fails with one line on stderr and exit 2 (docs/slurm.md).

# The calling script's name, for messages; each script sets it first.
: "${uts_job_script:=uts job script}"
# The folder of the job scripts, found by the script that sources this file.
: "${uts_slurm_dir:?set by the job script}"

uts_die() {
    printf '%s: %s\n' "$uts_job_script" "$*" >&2
    exit 2
}

# The repository holding this folder (scripts/slurm/ -> ../..).
uts_repo=$(cd -- "$uts_slurm_dir/../.." && pwd)

# UTS: a path, or a name looked up on PATH; default `uts` on PATH, else the
# repository's build/uts. Sets UTS to an absolute path of an executable.
uts_find_binary() {
    local given=${UTS:-}
    if [[ -z $given ]]; then
        if given=$(command -v uts); then
            :
        elif [[ -x $uts_repo/build/uts ]]; then
            given=$uts_repo/build/uts
        else
            uts_die "no uts binary: set UTS=/path/to/uts, put uts on PATH or build it (scripts/run builds build/uts)"
        fi
    elif [[ $given != */* ]]; then
        given=$(command -v -- "$given") || uts_die "UTS=$UTS: no such program on PATH"
    fi
    [[ -e $given ]] || uts_die "UTS=$given: no such file"
    [[ -f $given && -x $given ]] || uts_die "UTS=$given: not an executable file"
    UTS=$(cd -- "$(dirname -- "$given")" && pwd)/$(basename -- "$given")
}

# Each comma-separated name must be one of uts --list-presets (the binary's
# own list, so a custom preset directory compiled in is honoured).
uts_check_trees() {
    local names presets name
    presets=$("$UTS" --list-presets 2>/dev/null | awk 'NR > 1 { print $1 }') ||
        uts_die "$UTS --list-presets failed: is it a uts binary?"
    IFS=, read -r -a names <<<"$1"
    [[ ${#names[@]} -gt 0 ]] || uts_die "TREE is empty: give a preset name (uts --list-presets shows them)"
    for name in "${names[@]}"; do
        grep -qxF -- "$name" <<<"$presets" ||
            uts_die "unknown tree '$name' (uts --list-presets shows them)"
    done
}

# Outside a job the scripts would run on a login node: say how to submit.
uts_require_job() {
    [[ -n ${SLURM_JOB_ID:-} ]] ||
        uts_die "not inside a Slurm job: submit it with  sbatch $uts_slurm_dir/$uts_job_script  (docs/slurm.md)"
    [[ -n ${SLURM_CPUS_PER_TASK:-} ]] ||
        uts_die "the job has no --cpus-per-task: submit it with sbatch --cpus-per-task=N"
}

# OUT made absolute against the directory the job was submitted from (the
# job's working directory unless sbatch --chdir moved it).
uts_abs_out() {
    case $1 in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s/%s\n' "${SLURM_SUBMIT_DIR:-$PWD}" "$1" ;;
    esac
}
