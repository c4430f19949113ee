/** English function words left out of keyword extraction and sentence scoring. */
export const STOPWORDS = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being below
between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for
from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
how how's however i i'd i'll i'm i've if in into is isn't it it's its itself just let's like made make many may me
might more most much must mustn't my myself new no nor not now of off often on once one only or other ought our ours
ourselves out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their
theirs them themselves then there there's these they they'd they'll they're they've this those through to too two
under until up upon us use used using very was wasn't way we we'd we'll we're we've well were weren't what what's
when when's where where's whether which while who who's whom why why's will with within without won't would wouldn't
yet you you'd you'll you're you've your yours yourself yourselves get gets got every even still since via per etc`.split(
    /\s+/,
  ),
);
