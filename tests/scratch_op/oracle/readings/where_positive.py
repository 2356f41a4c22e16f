"""The second reading of toy.where_positive.txt (where_positive), sentence by sentence."""
from ..reading import Reading, Sentence, RULE, ERROR, EXAMPLE

READING = Reading(
    document="toy.where_positive.txt",
    sentences=(
        Sentence("wp.desc.1", "Description", RULE, "A new tensor is returned, holding x's element where it is "
                 "above zero and y's element everywhere else.", ("WP-RULE",)),
        Sentence("wp.param.1", "Parameters", RULE, "x and y share one shape, of any rank, and one numeric dtype.",
                 ("WP-RULE", "WP-SHAPE", "WP-DTYPE")),
        Sentence("wp.raise.1", "Raises", ERROR, "Shapes that differ raise ValueError.", ("WP-SHAPE",)),
        Sentence("wp.raise.2", "Raises", ERROR, "Equal shapes with dtypes that differ raise TypeError.", ("WP-DTYPE",)),
        Sentence("wp.ex.1", "Example", EXAMPLE, "float32 x [-1, 2, 0, 3] and y [10, 20, 30, 40] give "
                 "[10, 2, 30, 3].", ("WP-EX-1",)),
    ),
)
