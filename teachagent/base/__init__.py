"""Below the ideas: the plumbing the lessons' modules call by one clear name, importing none of them."""
