"""Matthew Rocklin's serialisation study frame: text with 1,000 distinct values, plus integers.

    df = pd.DataFrame({'text': [str(i % 1000) for i in range(1000000)], 'numbers': range(1000000)})

Built exactly as in the study (no randomness), at the profile's row count.
"""

import numpy as np

DATASET = "rocklin"
GENERATOR_VERSION = 1
PARTITIONS = ("all",)
DISTINCT = 1000


def generate(partition, rows, seed):
    index = np.arange(rows, dtype=np.int64)
    labels = np.array([str(i) for i in range(DISTINCT)], dtype="S")
    return {"numbers": index, "text": labels[index % DISTINCT]}
