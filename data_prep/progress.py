"""The progress bar of a long preparation (tqdm), or None where it is not wanted."""


def progress_bar(total, desc, enabled):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="rows", unit_scale=True)
