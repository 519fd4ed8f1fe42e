"""Warnings that topicvb emits beyond scikit-learn's (``ConvergenceWarning`` comes from scikit-learn)."""


class DeadTopicWarning(UserWarning):
    """A fit ended with topics that carry almost none of the corpus's tokens (less than 0.2 / K of them).

    Such topics usually list unrelated rare words and waste capacity. Fewer topics, another
    ``random_state``, or more iterations may serve better; ``topicvb.inspection.topic_prevalence``
    gives every topic's share.
    """
