"""Warnings that topicvb emits beyond scikit-learn's (``ConvergenceWarning`` comes from scikit-learn)."""


class DeadTopicWarning(UserWarning):
    """A fit ended with topics that carry almost none of the corpus's tokens (less than 0.2 / K of them).

    Such topics usually list unrelated rare words and waste capacity. Fewer topics, another
    ``random_state``, or more iterations may serve better; ``topicvb.inspection.topic_prevalence``
    gives every topic's share.
    """


class SeedLostWarning(UserWarning):
    """A guided fit ended with a seeded topic that holds much less of its seed words than its prior gives it.

    The data took the seed words to other topics (a theme the corpus does not separate from another one, or
    seed words used by other themes too), so the topic's label no longer describes it. More topics
    (``n_components``: with too few, the fit merges similar themes), more distinctive seed words or a higher
    ``seed_confidence`` may serve better; :func:`topicvb.guided.seed_holding` gives every seeded topic's share.
    """


class SeedUnseenWarning(UserWarning):
    """A guided fit's seed words include some that never occur in the training documents.

    Such a word cannot pull any document's words into its topic; its prior pseudo-counts alone may still
    rank it among the topic's top words, which would make the topic look guided when it is not. It happens
    with a vocabulary fixed beforehand (a vectorizer's ``vocabulary``, ``topicvb fit --vocab``) that holds terms
    these documents do not use: seed with words they use.
    """
